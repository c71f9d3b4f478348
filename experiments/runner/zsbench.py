"""Running zsbench and deciding whether a run counts."""


def phase(result, scheme, name, nth=0):
    """The nth phase called `name` (a workload may repeat `drain`) of one
    scheme in a zsbench JSON result (None if absent)."""
    for s in result.get("schemes", []):
        if s["name"] == scheme:
            same = [p for p in s["phases"] if p["name"] == name]
            return same[nth] if nth < len(same) else None
    return None


def is_load(phase_name):
    return phase_name.endswith("-load") or phase_name == "fillseq"


def problems(result, exit_code, schemes, workload):
    """Why a run does not count (empty when it does): zsbench failed, a
    scheme skipped a phase, a load left records out, or a phase's reads
    all missed (it read keys no load wrote: a key-naming mistake, which
    measures Bloom filters instead of the device). A partial run's ratios
    would compare unequal work."""
    out = []
    if exit_code != 0:
        out.append(f"zsbench exited {exit_code}")
    if result is None:
        return out + ["no JSON result"]
    phases = workload.split(",")
    records = result.get("args", {}).get("records")
    names = [s["name"] for s in result.get("schemes", [])]
    for scheme in schemes:
        if scheme not in names:
            out.append(f"scheme {scheme} missing")
            continue
        for i, pn in enumerate(phases):
            p = phase(result, scheme, pn, phases[:i].count(pn))
            if p is None:
                out.append(f"{scheme} did not run {pn}")
            elif is_load(pn) and p.get("ops") != records:
                out.append(f"{scheme} {pn} inserted {p.get('ops')} of {records} records")
            elif p.get("errors") or p.get("background_errors"):
                out.append(f"{scheme} {pn}: {p.get('errors', 0)} failed operations, "
                           f"{p.get('background_errors', 0)} background errors")
            elif p.get("reads_missed") and not p.get("reads_found"):
                out.append(f"{scheme} {pn}: all {p['reads_missed']} reads missed (keys no load wrote)")
    return out
