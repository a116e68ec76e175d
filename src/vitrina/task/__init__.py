"""The task job: plan -> approval -> steps with tools, each approved -> a summary.

    from vitrina.task.service import TaskService
    service = TaskService(settings)
    view = service.start("Сравни ... с прошлым годом по регионам")   # waits for the plan approval
    view = service.decide(view.task_id, {"action": "approve"})         # runs step 1, waits for its approval

Faces: `vitrina task` (commands.py), the web page (api.build_router), MCP (mcp_tool).
"""
