i, j, k = sch.get_loops("multiply")
sch.reverse_compute_at("add", i)
sch.pad_einsum("multiply", [16, 2, 2])
