sch.write_at(sch.get_loops("C")[0], "B", 0, "local")
