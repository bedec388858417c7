sch.set_axis_separator("P", ("write", 0), [1])
sch.set_scope("P", 0, "shared")
