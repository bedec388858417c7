sch.set_scope(sch.get_block("P"), 0, "shared")
