"""Package discovery, which pyproject.toml cannot say alone.

The templates, static files and bundled content live at the top of the checkout; the package-dir
mapping in pyproject.toml places them inside the `app` package of a wheel. They are listed here
beside the packages found under app/, which `tool.setuptools.packages.find` cannot combine.
"""

from setuptools import find_namespace_packages, setup

setup(
    packages=[
        *find_namespace_packages(include=["app", "app.*"], exclude=["*.__pycache__"]),
        "app.templates",
        "app.static",
        "app.bundled",
    ]
)
