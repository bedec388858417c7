i, k0, k1 = sch.get_loops("tot")
sch.rfactor(k1, 0)
