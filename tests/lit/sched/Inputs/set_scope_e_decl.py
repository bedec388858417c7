sch.set_scope("B", 0, "shared")
