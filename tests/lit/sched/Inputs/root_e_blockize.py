sch.blockize([sch.get_block("root")])
