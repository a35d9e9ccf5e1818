"""Plans re-planned after ACL's validate() refused operators, kept between processes.

The lowered-plan cache (:mod:`.plan_cache`) keeps the plan that the file and the code make;
which operators ACL's validate() refuses at configure is a fact of the ACL, shim, CPU and
device the runner met (ACL 20.08 refuses per-channel int8 depthwise convolutions, 24.11 does
not), so the plan the runner re-planned with them on the CPU fallback is kept in a file of its
own, under the plan cache's key plus that identity (``acl``: the runner's facts identity, as
acl_bridge.facts_cache keys ACL's answers). The next start on the same ACL loads that plan
directly instead of meeting the refusals again; on another ACL the key differs and the start
plans and negotiates as a first one. Same file format, checks and failure rules as the plan
cache (a damaged file is a warning and a cold start)."""

from __future__ import annotations

import os
from typing import Dict, Optional, Union

from ..format.model_cache import file_name
from ..lowering.partition import ACL_REFUSED
from .plan_cache import PlanCache
from .tflite_plan import Plan

SUFFIX = ".aclreplan"


class ReplannedPlanCache(PlanCache):
    """The re-planned plan of one model file on one ACL (``acl``: its identity, plain values)."""

    def __init__(self, data: bytes, acl: object, directory: Union[None, str, "os.PathLike[str]"] = None):
        super().__init__(data, directory)
        self.data = data  # the file's bytes: a further refusal re-plans from them
        self.key = {**self.key, "acl": acl}
        self.path = self.directory / file_name(self.key, SUFFIX)

    def load(self) -> Optional[Plan]:
        plan = super().load()
        if plan is not None and not refused_by_acl(plan):
            return self._cold(f"{self.path} ignored: its plan has no operator refused by ACL")
        if plan is None and self.reason == "no lowered plan kept":
            self.reason = "no re-planned plan kept for this ACL"
        return plan


def refused_by_acl(plan: Plan) -> Dict[int, str]:
    """The plan's operators on the fallback because ACL refused them: index -> the text."""
    return {f.op_index: f.reason for f in plan.fallbacks if f.kind == ACL_REFUSED}


__all__ = ["ReplannedPlanCache", "refused_by_acl", "SUFFIX"]
