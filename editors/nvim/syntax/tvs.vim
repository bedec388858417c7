" TVS syntax: Python's, plus the builtin namespaces (T., R., I., te.),
" block names in T.block("...") and schedule handles' methods.
if exists("b:current_syntax")
  finish
endif
runtime! syntax/python.vim
unlet! b:current_syntax
syntax match tvsNamespace "\<\(T\|R\|I\|te\)\.\@="
syntax match tvsBuiltin "\(\<\(T\|R\|I\|te\)\.\)\@<=[A-Za-z_][A-Za-z0-9_.]*"
syntax match tvsBlockName +\(T\.s\?block(\|get_block(\)\@<=["'][^"']*["']+
syntax match tvsDtype +["']\(float\|int\|uint\|bfloat\)\d\+\(x\d\+\)\?["']+
highlight default link tvsNamespace Include
highlight default link tvsBuiltin Function
highlight default link tvsBlockName Label
highlight default link tvsDtype Type
let b:current_syntax = "tvs"
