import './style.css';

// SwaggerUIBundle comes from the locally served vendor bundle (no CDN).
window.SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger',
  deepLinking: true,
  persistAuthorization: false,
  tryItOutEnabled: true,
  displayRequestDuration: true,
});
