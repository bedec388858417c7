i, j, k = sch.get_loops("C")
sch.decompose_reduction("C", k)
sch.rfactor(k, 0)
