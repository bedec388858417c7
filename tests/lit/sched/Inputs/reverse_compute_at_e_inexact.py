sch.transform_block_layout("C", lambda v0, v1: (v0 * 12 + v1,))
f, = sch.get_loops("C")
fo, fi = sch.split(f, [None, 8])
sch.reverse_compute_at("D", fo)
