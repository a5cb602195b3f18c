from lionish.studio.registry import studio_route


@studio_route("/ops")  # LL003: registers at import time
def ops() -> str:
    return "ops"
