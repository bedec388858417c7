b = sch.get_block("B")
sch.annotate(b, "buffer_dim_align", [[0, 0, 4]])
sch.storage_align(b, 0, 0, 16, 1)
