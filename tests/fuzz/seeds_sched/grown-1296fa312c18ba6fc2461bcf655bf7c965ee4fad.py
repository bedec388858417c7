sch.transform_block_layout("B", lambda ib, j: (i // 2, j))
