"""Picks the agent an operation runs with."""

from lionish.agents.config import AgentParam  # LL005: ops (layer 2) imports agents (layer 3)


def default_agent() -> AgentParam:
    return AgentParam()
