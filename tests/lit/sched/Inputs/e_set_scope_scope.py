sch.set_scope("B", 0, "sharedx")
