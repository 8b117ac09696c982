// Starts Swagger UI on /docs. A file of its own, not an inline script: the site's
// Content-Security-Policy allows scripts from this origin only.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  // Swagger UI would otherwise send the schema to validator.swagger.io.
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
});
