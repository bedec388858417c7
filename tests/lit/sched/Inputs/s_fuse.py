i, j = sch.get_loops("B")
sch.fuse(i, j)
