sch.storage_align("B", 0, 0, -4, 1)
