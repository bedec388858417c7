sch.set_axis_separator(sch.get_block("P"), ("write", 0), [1])
