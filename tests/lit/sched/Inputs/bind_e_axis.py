i, j = sch.get_loops("B")
sch.bind(i, "threadIdx.w")
