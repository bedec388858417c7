i, j = sch.get_loops("scale")
sch.write_at(i, "scale", 0, "local")
