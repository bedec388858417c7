i, k = sch.get_loops("S")
sch.decompose_reduction("S", i)
