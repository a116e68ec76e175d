"""The app's views, one module per resource; the URL table is vitrina.server.routes."""
