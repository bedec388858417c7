block = sch.get_block("copy_in")
sch.cache_read(block, 0, "local", [block])
