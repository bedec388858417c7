i, j = sch.get_loops("scale")
sch.read_at(j, "scale", 0, "local")
