"""Interface strings in Chinese and English, as data: the base layer and the web both read them."""
