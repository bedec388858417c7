i, k = sch.get_loops("B")
sch.unroll(k)
sch.rfactor(k, 0)
