i, k = sch.get_loops("B")
f = sch.fuse(i, k)
sch.rfactor(f, 0)
