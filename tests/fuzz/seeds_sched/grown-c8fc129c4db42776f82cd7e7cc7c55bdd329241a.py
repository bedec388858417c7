i, j, k = sch.get_loops(-"C")
sch.tensorize(j, "axpy_8_f32")
