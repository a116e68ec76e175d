"""`vitrina mcp`: Vitrina's tools for coding assistants (Cursor, Claude) over MCP.

:mod:`vitrina.mcp.tools` holds the tools as plain functions (testable without MCP);
:mod:`vitrina.mcp.server` registers them on the official SDK's server.
"""
