" .tvs files and schedule scripts (.sch) are TVS's TVMScript.
autocmd BufRead,BufNewFile *.tvs,*.sch setfiletype tvs
