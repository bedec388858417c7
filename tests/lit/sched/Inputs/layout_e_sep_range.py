sch.set_axis_separator("B", ("write", 0), [2])
