sch.set_scope("D", 0, "shared")
