# bash completion for fedbench. Installed as share/bash-completion/completions/fedbench (loaded
# on demand by bash-completion); or source it from ~/.bashrc.
#
# Everything is read from fedbench itself when first needed and cached for the shell:
# subcommands and options from `fedbench [SUB] --help`, solver and problem names from
# `fedbench list solvers|problems`, experiment names from `fedbench reproduce --list`, parameter
# keys (after -s / -p) from `fedbench describe NAME` of the --solver / --problem already on the
# line.

declare -gA _fedbench_cache=()

# REPLY = the output of `fedbench ARGS...` (stderr dropped), computed once per shell.
# The plug-ins of the line being completed (`--plugin FILE`) load for every query, so that their
# solvers and problems are offered too.
_fedbench_plugins=()
_fedbench_query() {
  local key="$_fedbench_bin|${_fedbench_plugins[*]}|$*"
  if [[ -z ${_fedbench_cache[$key]+set} ]]; then
    _fedbench_cache[$key]=$("$_fedbench_bin" "${_fedbench_plugins[@]}" "$@" 2>/dev/null </dev/null)
  fi
  REPLY=${_fedbench_cache[$key]}
}

# REPLY = the subcommands of `fedbench ARGS...` (the names under "Subcommands:" of its --help).
_fedbench_subcommands() {
  _fedbench_query "$@" --help
  REPLY=$(awk '/^Subcommands:[[:space:]]*$/ { s = 1; next }
               s && /^  [a-z]/ { print $1; next }
               s && !/^   / { s = 0 }' <<<"$REPLY")
  if [[ -z $REPLY && $# -eq 0 ]]; then  # fedbench not runnable: the known list
    REPLY="list describe run show plan export check select data instance report reproduce prune conform new-solver"
  fi
}

# REPLY = the options of `fedbench ARGS...` (every -x / --xx of its --help), one per line;
# _fedbench_valued = those that take a value (a type such as TEXT or UINT follows them in the
# help), _fedbench_text = those whose value is TEXT, each as " -o --output ... ".
_fedbench_options() {
  _fedbench_query "$@" --help
  local help=$REPLY
  REPLY=$(awk '/^ +-/ { n = split($1, a, ","); for (i = 1; i <= n; ++i) print a[i] }' <<<"$help")
  local typed='/^ +-/ && $2 ~ /^[A-Z][A-Z_]*([:[]|$)/'
  _fedbench_valued=" $(awk "$typed"' { n = split($1, a, ",");
                                       for (i = 1; i <= n; ++i) printf "%s ", a[i] }' <<<"$help")"
  _fedbench_text=" $(awk "$typed"' && $2 ~ /^TEXT/ { n = split($1, a, ",");
                                     for (i = 1; i <= n; ++i) printf "%s ", a[i] }' <<<"$help")"
}

# REPLY = the names `fedbench ARGS...` lists: the first word of its lines that start with a
# lowercase letter (`list solvers`, `list problems`, `reproduce --list`: experiment names).
_fedbench_names() {
  _fedbench_query "$@"
  REPLY=$(awk '/^[a-z]/ { print $1 }' <<<"$REPLY")
}

# REPLY = the parameter keys of solver or problem NAME: first words of the table rows of
# `fedbench describe NAME` (two-space indent, after the "name type default" header).
_fedbench_keys() {
  _fedbench_query describe "$1"
  REPLY=$(awk '/^  name +type +default/ { t = 1; next }
               t && /^  [a-z][a-z0-9_]*  +[^ ]/ { print $1; next }
               { t = 0 }' <<<"$REPLY")
}

# The value of option $1 (e.g. --solver) on the command line, as "--solver X", "--solver=X" or
# (with '=' in COMP_WORDBREAKS) "--solver = X".
_fedbench_option_value() {
  local i w
  for ((i = 1; i < ${#COMP_WORDS[@]}; ++i)); do
    ((i == COMP_CWORD)) && continue
    w=${COMP_WORDS[i]}
    if [[ $w == "$1="?* ]]; then REPLY=${w#*=}; return 0; fi
    if [[ $w == "$1" ]]; then
      w=${COMP_WORDS[i + 1]-}
      [[ $w == "=" ]] && w=${COMP_WORDS[i + 2]-}
      [[ -n $w && $w != -* ]] && { REPLY=$w; return 0; }
    fi
  done
  return 1
}

# COMPREPLY += the words of $1 that start with $cur.
_fedbench_add() {
  local IFS=$'\n'
  COMPREPLY+=($(compgen -W "$1" -- "$cur"))
}

# COMPREPLY += files matching the glob $1 (e.g. '*.h5'; empty: every file) and directories.
_fedbench_files() {
  local IFS=$'\n'
  compopt -o filenames 2>/dev/null
  if [[ -n ${1-} ]]; then
    COMPREPLY+=($(compgen -f -X "!$1" -- "$cur") $(compgen -d -- "$cur"))
  else
    COMPREPLY+=($(compgen -f -- "$cur"))
  fi
}

# COMPREPLY += directories.
_fedbench_dirs() {
  local IFS=$'\n'
  compopt -o filenames 2>/dev/null
  COMPREPLY+=($(compgen -d -- "$cur"))
}

_fedbench() {
  local _fedbench_eq=""  # "--opt=" when the whole "--opt=VALUE" is the current word
  _fedbench_complete
  if [[ -n $_fedbench_eq ]]; then
    local i
    for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]=$_fedbench_eq${COMPREPLY[i]}; done
  fi
  return 0
}

_fedbench_complete() {
  COMPREPLY=()
  local cur=${COMP_WORDS[COMP_CWORD]-} prev=${COMP_WORDS[COMP_CWORD - 1]-}
  _fedbench_bin=${COMP_WORDS[0]}
  [[ $_fedbench_bin == "~/"* ]] && _fedbench_bin=$HOME/${_fedbench_bin#"~/"}
  type -P "$_fedbench_bin" >/dev/null 2>&1 || _fedbench_bin=fedbench

  # "--opt=VALUE" split by COMP_WORDBREAKS: cur "=" (nothing typed yet) or prev "=".
  if [[ $cur == "=" ]]; then
    cur="" ; prev=${COMP_WORDS[COMP_CWORD - 1]-}
  elif [[ $prev == "=" ]]; then
    prev=${COMP_WORDS[COMP_CWORD - 2]-}
  elif [[ $cur == --*=* ]]; then  # '=' not in COMP_WORDBREAKS
    prev=${cur%%=*}; cur=${cur#*=}; _fedbench_eq=$prev=
  fi
  # the value of a key=value parameter: nothing to offer
  if [[ ${COMP_WORDS[COMP_CWORD]} == "=" || ${COMP_WORDS[COMP_CWORD - 1]} == "=" ]] &&
     [[ $prev != -* ]]; then
    return 0
  fi

  # A plug-in file after --plugin.
  if [[ $prev == --plugin ]]; then
    local IFS=$'\n'
    compopt -o filenames 2>/dev/null
    COMPREPLY+=($(compgen -f -X '!*.so' -- "$cur") $(compgen -f -X '!*.py' -- "$cur") $(compgen -d -- "$cur"))
    return 0
  fi
  # The subcommand path (e.g. "run", "data partition"): leading words that are subcommands;
  # `--plugin FILE` (also as --plugin=FILE, split at '=') is taken out and kept for the queries.
  local -a path=() words=()
  local i w subs
  _fedbench_plugins=()
  for ((i = 1; i < COMP_CWORD; ++i)); do
    w=${COMP_WORDS[i]}
    if [[ $w == --plugin ]]; then
      [[ ${COMP_WORDS[i + 1]-} == "=" ]] && ((++i))
      ((++i < COMP_CWORD)) && _fedbench_plugins+=(--plugin "${COMP_WORDS[i]}")
    elif [[ $w == --plugin=* ]]; then
      _fedbench_plugins+=(--plugin "${w#--plugin=}")
    else
      words+=("$w")
    fi
  done
  for w in "${words[@]}"; do
    [[ $w == -* || $w == "=" ]] && continue
    _fedbench_subcommands "${path[@]}"
    subs=$'\n'$REPLY$'\n'
    if [[ $subs == *$'\n'"$w"$'\n'* ]]; then path+=("$w"); else break; fi
  done

  if ((${#path[@]} == 0)); then
    if [[ $cur == -* ]]; then _fedbench_add $'--help\n--version\n--plugin'; else
      _fedbench_subcommands; _fedbench_add "$REPLY"; fi
    return 0
  fi
  local sub=${path[0]} leaf=${path[*]}

  # The value of an option.
  _fedbench_options "${path[@]}"
  local options=$REPLY
  if [[ $prev == -* && $_fedbench_valued == *" $prev "* ]]; then
    case $prev in
      --solver) _fedbench_names list solvers; _fedbench_add "$REPLY" ;;
      --problem) _fedbench_names list problems; _fedbench_add "$REPLY" ;;
      -s | --solver-param | -p | --problem-param | --param)
        # a key "name=" of the solver (-s) or problem (-p) on the line; nothing after '='
        [[ ${COMP_WORDS[COMP_CWORD]} == "=" || ${COMP_WORDS[COMP_CWORD - 1]} == "=" ||
           $cur == *=* ]] && return 0
        local name=""
        if [[ $sub == describe || $sub == instance ]]; then  # its positional NAME
          for ((i = 2; i < ${#COMP_WORDS[@]}; ++i)); do
            w=${COMP_WORDS[i]}
            ((i == COMP_CWORD)) && continue
            [[ $w == -* || $w == "=" || ${COMP_WORDS[i - 1]} == "=" ]] && continue
            [[ ${COMP_WORDS[i - 1]} == -* ]] && continue
            name=$w; break
          done
        elif [[ $prev == -s || $prev == --solver-param ]]; then
          _fedbench_option_value --solver && name=$REPLY
        else
          _fedbench_option_value --problem && name=$REPLY
        fi
        [[ -n $name ]] || return 0
        _fedbench_keys "$name"
        local IFS=$'\n'
        COMPREPLY=($(compgen -W "$REPLY" -S "=" -- "$cur"))
        compopt -o nospace 2>/dev/null
        ;;
      -o | --output)
        case $sub in
          select) _fedbench_files '*.yaml' ;;
          instance) _fedbench_files '*.h5' ;;
          report) _fedbench_dirs ;;
          *) _fedbench_files ;;
        esac ;;
      --results | --reference) _fedbench_dirs ;;
      --format) _fedbench_add $'csv\njson' ;;
      --participation) _fedbench_add $'full\nuniform:\nbernoulli:\niid:\ndropout:'
                       compopt -o nospace 2>/dev/null ;;
      --scheme) _fedbench_add $'iid\nshards:\ndirichlet:\nquantity:\ncontiguous'
                compopt -o nospace 2>/dev/null ;;
      *) # numbers get nothing, text file names
         [[ $_fedbench_text == *" $prev "* ]] && _fedbench_files ;;
    esac
    return 0
  fi

  if [[ $cur == -* ]]; then
    _fedbench_add "$options"
    return 0
  fi

  # Positional arguments: nested subcommands first, then by subcommand.
  _fedbench_subcommands "${path[@]}"
  if [[ -n $REPLY ]]; then _fedbench_add "$REPLY"; return 0; fi
  case $leaf in
    list) _fedbench_add $'problems\nsolvers\nsuites' ;;
    describe)
      _fedbench_names list solvers; _fedbench_add "$REPLY"
      _fedbench_names list problems; _fedbench_add "$REPLY" ;;
    run | plan | check)
      _fedbench_files '*.yaml'
      _fedbench_names list suites; _fedbench_add "$REPLY" ;;
    show | export) _fedbench_files '*.h5' ;;
    select | report) _fedbench_dirs ;;
    instance) _fedbench_names list problems; _fedbench_add "$REPLY" ;;
    conform) _fedbench_names list solvers; _fedbench_add "$REPLY" ;;
    reproduce) _fedbench_names reproduce --list; _fedbench_add "$REPLY" ;;
    *) _fedbench_files ;;
  esac
  return 0
}

complete -F _fedbench fedbench
