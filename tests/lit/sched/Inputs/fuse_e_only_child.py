i, j = sch.get_loops("C")
sch.fuse(i, j)
