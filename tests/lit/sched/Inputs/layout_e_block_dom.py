sch.transform_block_layout("C", lambda i: (i,))
