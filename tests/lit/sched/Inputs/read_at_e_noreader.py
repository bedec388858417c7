sch.read_at(sch.get_loops("C")[0], "D", 1, "shared")
