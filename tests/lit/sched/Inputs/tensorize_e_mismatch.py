i, j, k = sch.get_loops("C")
j0, j1 = sch.split(j, factors=[None, 8])
sch.reorder(i, j0, k, j1)
sch.tensorize(j1, "axpy_16_f32")
