// The API reference page: swagger-ui-dist's bundle (loaded before this) on the served document.
window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true })
