n, c, h, w = sch.get_loops("pad")
sch.reverse_compute_at("conv", h)
