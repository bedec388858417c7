k, _ = sch.get_loops("B")
sch.blockize(k)
