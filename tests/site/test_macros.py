

def test_many_runs_under_one_table_get_one_stamp_line_per_machine_and_torch():
    from snippets.site import macros

    def placed(device, torch_version, day):
        prov = {"device": device, "torch": torch_version, "date": f"2026-12-0{day}T00:00:00"}
        return macros.Placed(None, f"recorded: {device} {day}", "cuda", (prov,))
    runs = [placed("GPU", "2.11", d) for d in (3, 1, 2)] + [placed("CPU", "2.14", 4)]
    stamp = macros.together(*runs).stamp
    assert stamp.count(";") == 1  # two machines, one part each
    assert "3 results files, 2026-12-01 to 2026-12-03" in stamp
    assert macros.together(*runs[:2]).stamp == "recorded: GPU 3; recorded: GPU 1"
