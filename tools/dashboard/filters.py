"""The dashboard's filters: which query parameters exist, which values they may take, and the
parameterised SQL they become. A value must be one the store holds, so nothing typed into a URL ever
reaches SQL text; it is only ever a bound parameter."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tools.store.db import Database

# Query parameter -> results column. One source of truth for both the form and the SQL.
FILTER_COLUMNS: dict[str, str] = {
    "run": "run_id",
    "suite": "suite",
    "model": "model",
    "mode": "mode",
    "dtype": "dtype",
    "backend": "backend",
    "device": "device_name",
    "torch": "torch_version",
    "manifest": "manifest_version",
}
FILTER_LABELS = {"run": "run", "suite": "suite", "model": "model", "mode": "mode", "dtype": "dtype",
                 "backend": "backend", "device": "device", "torch": "torch version", "manifest": "manifest version"}
# Parameters that name a run to compare against; their values are run ids too.
RUN_PARAMETERS = ("base",)
MAX_VALUE_LENGTH = 300


class FilterError(ValueError):
    """A query parameter the dashboard does not know, or a value the store does not hold."""


@dataclass(frozen=True)
class Filters:
    values: Mapping[str, str] = field(default_factory=dict)  # parameter -> chosen value (absent: any)
    base: str = ""

    def get(self, name: str) -> str:
        return self.values.get(name, "")

    def where(self, skip: Sequence[str] = ()) -> tuple[str, tuple[object, ...]]:
        """(SQL condition with ? placeholders, parameters); `skip` leaves some filters out (e.g. the run)."""
        clauses, params = [], []
        for name, column in FILTER_COLUMNS.items():
            value = self.values.get(name)
            if value and name not in skip:
                clauses.append(f"{column} = ?")  # column names come from FILTER_COLUMNS only
                params.append(value)
        return " AND ".join(clauses) or "1 = 1", tuple(params)

    def with_values(self, **changes: str) -> Filters:
        values = dict(self.values)
        base = changes.pop("base", self.base)
        for name, value in changes.items():
            if value:
                values[name] = value
            else:
                values.pop(name, None)
        return Filters(values, base)

    def as_params(self) -> dict[str, str]:
        params = {k: v for k, v in self.values.items() if v}
        if self.base:
            params["base"] = self.base
        return params


def options(db: Database) -> dict[str, list[str]]:
    """Every value each filter can take: the distinct values stored."""
    found: dict[str, list[str]] = {}
    for name, column in FILTER_COLUMNS.items():
        rows = db.query(f"SELECT DISTINCT {column} FROM results ORDER BY {column}")
        found[name] = [str(row[0]) for row in rows if row[0] not in (None, "")]
    # OpInfo runs and devices are filter values too (the OpInfo page reads them).
    for name, column in (("run", "run_id"), ("device", "device_name")):
        extra = {str(row[0]) for row in db.query(f"SELECT DISTINCT {column} FROM opinfo_results") if row[0]}
        found[name] = sorted(set(found[name]) | extra)
    return found


def parse(query: Mapping[str, Sequence[str]], allowed: Mapping[str, Sequence[str]], page_params: Sequence[str]
          ) -> Filters:
    """Validates a parsed query string (name -> values) against the stored values."""
    values: dict[str, str] = {}
    base = ""
    for name, given in query.items():
        if name not in FILTER_COLUMNS and name not in RUN_PARAMETERS:
            raise FilterError(f"unknown query parameter {name[:60]!r}; this page takes "
                              f"{', '.join(sorted(set(FILTER_COLUMNS) | set(page_params)))}")
        if name in RUN_PARAMETERS and name not in page_params:
            raise FilterError(f"query parameter {name!r} does not apply to this page")
        if len(given) != 1:
            raise FilterError(f"query parameter {name!r} was given {len(given)} times; give it once")
        value = given[0]
        if not value:
            continue
        if len(value) > MAX_VALUE_LENGTH:
            raise FilterError(f"value of {name!r} is {len(value)} characters long; no stored value is")
        choices = allowed["run" if name in RUN_PARAMETERS else name]
        if value not in choices:
            raise FilterError(f"no stored result has {FILTER_LABELS.get(name, name)} {value[:80]!r}; "
                              f"stored values: {', '.join(choices[:20]) or 'none'}"
                              + (" ..." if len(choices) > 20 else ""))
        if name in RUN_PARAMETERS:
            base = value
        else:
            values[name] = value
    return Filters(values, base)
