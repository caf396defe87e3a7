# bash completion for ciosim (installed as share/bash-completion/completions/ciosim; or `source` this file).
# Subcommands and their options; scenario and platform files; --set keys and, after KEY=, the key's
# choices, both read from `ciosim list --keys` so they follow the build.
_ciosim() {
  local cur prev sub i
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  sub=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "${COMP_WORDS[i]}" in -*) ;; *) sub="${COMP_WORDS[i]}"; break ;; esac
  done
  local subs="run plan list plot merge validate calibrate capture advise"
  if [[ -z "$sub" ]]; then
    COMPREPLY=($(compgen -W "$subs --help --version" -- "$cur"))
    return
  fi
  # After --set KEY= (bash splits the word at '='): the key's choices.
  local key=""
  if [[ "$prev" == "=" && "${COMP_WORDS[COMP_CWORD-3]}" == "--set" ]]; then
    key="${COMP_WORDS[COMP_CWORD-2]}"
  elif [[ "$cur" == "=" && "${COMP_WORDS[COMP_CWORD-2]}" == "--set" ]]; then
    key="$prev"; cur=""
  fi
  if [[ -n "$key" ]]; then
    COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" list --choices "$key" 2>/dev/null)" -- "$cur"))
    return
  fi
  case "$prev" in
    --set)
      compopt -o nospace 2>/dev/null
      COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" list --keys 2>/dev/null | sed 's/$/=/')" -- "$cur"))
      return ;;
    --out|--work-dir|--hostfile|--export-file|--measurements|--svg)
      COMPREPLY=($(compgen -f -- "$cur"))
      return ;;
  esac
  if [[ "$cur" == -* ]]; then
    local opts
    opts="$("${COMP_WORDS[0]}" "$sub" --help 2>/dev/null | grep -oE -- '--?[A-Za-z][A-Za-z0-9-]*' | sort -u)"
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -X '!*.toml' -- "$cur") $(compgen -d -- "$cur"))
}
complete -F _ciosim ciosim
