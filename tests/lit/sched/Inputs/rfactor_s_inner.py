i, k = sch.get_loops("B")
k0, k1 = sch.split(k, factors=[None, 8])
sch.rfactor(k1, 0)
