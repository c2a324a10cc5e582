#!/bin/bash

__keychainctl_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__keychainctl_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__keychainctl_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__keychainctl_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_keychainctl() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __keychainctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    create-keychain|delete-keychain|lock-keychain|unlock-keychain|show-keychain-info|set-keychain-settings|set-keychain-password|add-generic-password|find-generic-password|delete-generic-password|add-internet-password|find-internet-password|delete-internet-password|dump-keychain|git-credential|import|export|find-certificate|find-identity|exec|import-credentials|sync|secret-service|app-access|access-log|service|app|help)
        # Offer subcommand argument completions
        "_keychainctl_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'create-keychain delete-keychain lock-keychain unlock-keychain show-keychain-info set-keychain-settings set-keychain-password add-generic-password find-generic-password delete-generic-password add-internet-password find-internet-password delete-internet-password dump-keychain git-credential import export find-certificate find-identity exec import-credentials sync secret-service app-access access-log service app help' -- "${cur}"))
        ;;
    esac
}

_keychainctl_create-keychain() {
    repeating_flags=()
    non_repeating_flags=(--tpm --version -h --help)
    repeating_options=()
    non_repeating_options=(-p --tpm-pcrs)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-p')
        return
        ;;
    '--tpm-pcrs')
        return
        ;;
    esac
}

_keychainctl_delete-keychain() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options -1
}

_keychainctl_lock-keychain() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 1
}

_keychainctl_unlock-keychain() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(-p)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-p')
        return
        ;;
    esac
}

_keychainctl_show-keychain-info() {
    repeating_flags=()
    non_repeating_flags=(--json --security --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 1
}

_keychainctl_set-keychain-settings() {
    repeating_flags=()
    non_repeating_flags=(-l -u --version -h --help)
    repeating_options=()
    non_repeating_options=(-t)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-t')
        return
        ;;
    esac
}

_keychainctl_set-keychain-password() {
    repeating_flags=()
    non_repeating_flags=(--tpm --version -h --help)
    repeating_options=()
    non_repeating_options=(-o -p --tpm-pcrs)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-o')
        return
        ;;
    '-p')
        return
        ;;
    '--tpm-pcrs')
        return
        ;;
    esac
}

_keychainctl_add-generic-password() {
    repeating_flags=()
    non_repeating_flags=(-U --synchronizable --version -h --help)
    repeating_options=()
    non_repeating_options=(-a -s -l -j -D -w --accessible)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-a')
        return
        ;;
    '-s')
        return
        ;;
    '-l')
        return
        ;;
    '-j')
        return
        ;;
    '-D')
        return
        ;;
    '-w')
        return
        ;;
    '--accessible')
        __keychainctl_add_completions -W 'when-unlocked'$'\n''after-first-unlock'$'\n''when-unlocked-this-device-only'$'\n''after-first-unlock-this-device-only'$'\n''when-passcode-set-this-device-only'
        return
        ;;
    esac
}

_keychainctl_find-generic-password() {
    repeating_flags=()
    non_repeating_flags=(-g -w --json --version -h --help)
    repeating_options=()
    non_repeating_options=(-a -s -l -j -D)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-a')
        return
        ;;
    '-s')
        return
        ;;
    '-l')
        return
        ;;
    '-j')
        return
        ;;
    '-D')
        return
        ;;
    esac
}

_keychainctl_delete-generic-password() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(-a -s -l -j -D)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-a')
        return
        ;;
    '-s')
        return
        ;;
    '-l')
        return
        ;;
    '-j')
        return
        ;;
    '-D')
        return
        ;;
    esac
}

_keychainctl_add-internet-password() {
    repeating_flags=()
    non_repeating_flags=(-U --synchronizable --version -h --help)
    repeating_options=()
    non_repeating_options=(-a -s -d -p -P -r -t -l -j -D -w --accessible)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-a')
        return
        ;;
    '-s')
        return
        ;;
    '-d')
        return
        ;;
    '-p')
        return
        ;;
    '-P')
        return
        ;;
    '-r')
        return
        ;;
    '-t')
        return
        ;;
    '-l')
        return
        ;;
    '-j')
        return
        ;;
    '-D')
        return
        ;;
    '-w')
        return
        ;;
    '--accessible')
        __keychainctl_add_completions -W 'when-unlocked'$'\n''after-first-unlock'$'\n''when-unlocked-this-device-only'$'\n''after-first-unlock-this-device-only'$'\n''when-passcode-set-this-device-only'
        return
        ;;
    esac
}

_keychainctl_find-internet-password() {
    repeating_flags=()
    non_repeating_flags=(-g -w --json --version -h --help)
    repeating_options=()
    non_repeating_options=(-a -s -d -p -P -r -t -l -j -D)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-a')
        return
        ;;
    '-s')
        return
        ;;
    '-d')
        return
        ;;
    '-p')
        return
        ;;
    '-P')
        return
        ;;
    '-r')
        return
        ;;
    '-t')
        return
        ;;
    '-l')
        return
        ;;
    '-j')
        return
        ;;
    '-D')
        return
        ;;
    esac
}

_keychainctl_delete-internet-password() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(-a -s -d -p -P -r -t -l -j -D)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-a')
        return
        ;;
    '-s')
        return
        ;;
    '-d')
        return
        ;;
    '-p')
        return
        ;;
    '-P')
        return
        ;;
    '-r')
        return
        ;;
    '-t')
        return
        ;;
    '-l')
        return
        ;;
    '-j')
        return
        ;;
    '-D')
        return
        ;;
    esac
}

_keychainctl_dump-keychain() {
    repeating_flags=()
    non_repeating_flags=(--skip-damaged -d --json --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 1
}

_keychainctl_git-credential() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 1
}

_keychainctl_import() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(-k --tag -l)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-k')
        return
        ;;
    '--tag')
        return
        ;;
    '-l')
        return
        ;;
    esac
}

_keychainctl_export() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(-t --format --plaintext-export -k --tag)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '-t')
        __keychainctl_add_completions -W 'certs'$'\n''pubkeys'
        return
        ;;
    '--format')
        __keychainctl_add_completions -W 'pem'$'\n''cxf'
        return
        ;;
    '--plaintext-export')
        return
        ;;
    '-k')
        return
        ;;
    '--tag')
        return
        ;;
    esac
}

_keychainctl_find-certificate() {
    repeating_flags=()
    non_repeating_flags=(-a -p -Z --version -h --help)
    repeating_options=()
    non_repeating_options=(-c)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-c')
        return
        ;;
    esac
}

_keychainctl_find-identity() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 1
}

_keychainctl_exec() {
    repeating_flags=()
    non_repeating_flags=(--allow-missing --keep-unlock-variables --version -h --help)
    repeating_options=(--env --env-file)
    non_repeating_options=(--keychain)
    __keychainctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--keychain')
        return
        ;;
    '--env')
        return
        ;;
    '--env-file')
        return
        ;;
    esac
}

_keychainctl_import-credentials() {
    repeating_flags=()
    non_repeating_flags=(--apply --remove-source --version -h --help)
    repeating_options=()
    non_repeating_options=(--format --password-file --env-service)
    __keychainctl_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--format')
        return
        ;;
    '--password-file')
        return
        ;;
    '--env-service')
        return
        ;;
    esac
}

_keychainctl_sync() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    run|create|join|sponsor|confirm|status|remove-device|leave|history|restore)
        # Offer subcommand argument completions
        "_keychainctl_sync_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'run create join sponsor confirm status remove-device leave history restore' -- "${cur}"))
        ;;
    esac
}

_keychainctl_sync_run() {
    repeating_flags=()
    non_repeating_flags=(--watch --adopt-remote-history --insecure --version -h --help)
    repeating_options=()
    non_repeating_options=(--interval --keep-versions --transport --endpoints --remote --branch --folder --cacert --cert --key --user --password-file)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--interval')
        return
        ;;
    '--keep-versions')
        return
        ;;
    '--transport')
        __keychainctl_add_completions -W 'etcd'$'\n''git'$'\n''folder'
        return
        ;;
    '--endpoints')
        return
        ;;
    '--remote')
        return
        ;;
    '--branch')
        return
        ;;
    '--folder')
        return
        ;;
    '--cacert')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--user')
        return
        ;;
    '--password-file')
        return
        ;;
    esac
}

_keychainctl_sync_create() {
    repeating_flags=()
    non_repeating_flags=(--insecure --version -h --help)
    repeating_options=()
    non_repeating_options=(--transport --endpoints --remote --branch --folder --cacert --cert --key --user --password-file)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--transport')
        __keychainctl_add_completions -W 'etcd'$'\n''git'$'\n''folder'
        return
        ;;
    '--endpoints')
        return
        ;;
    '--remote')
        return
        ;;
    '--branch')
        return
        ;;
    '--folder')
        return
        ;;
    '--cacert')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--user')
        return
        ;;
    '--password-file')
        return
        ;;
    esac
}

_keychainctl_sync_join() {
    repeating_flags=()
    non_repeating_flags=(--insecure --version -h --help)
    repeating_options=()
    non_repeating_options=(--transport --endpoints --remote --branch --folder --cacert --cert --key --user --password-file)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--transport')
        __keychainctl_add_completions -W 'etcd'$'\n''git'$'\n''folder'
        return
        ;;
    '--endpoints')
        return
        ;;
    '--remote')
        return
        ;;
    '--branch')
        return
        ;;
    '--folder')
        return
        ;;
    '--cacert')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--user')
        return
        ;;
    '--password-file')
        return
        ;;
    esac
}

_keychainctl_sync_sponsor() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--password-file)
    __keychainctl_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--password-file')
        return
        ;;
    esac
}

_keychainctl_sync_confirm() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--password-file)
    __keychainctl_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--password-file')
        return
        ;;
    esac
}

_keychainctl_sync_status() {
    repeating_flags=()
    non_repeating_flags=(--insecure --version -h --help)
    repeating_options=()
    non_repeating_options=(--transport --endpoints --remote --branch --folder --cacert --cert --key --user --password-file)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--transport')
        __keychainctl_add_completions -W 'etcd'$'\n''git'$'\n''folder'
        return
        ;;
    '--endpoints')
        return
        ;;
    '--remote')
        return
        ;;
    '--branch')
        return
        ;;
    '--folder')
        return
        ;;
    '--cacert')
        return
        ;;
    '--cert')
        return
        ;;
    '--key')
        return
        ;;
    '--user')
        return
        ;;
    '--password-file')
        return
        ;;
    esac
}

_keychainctl_sync_remove-device() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--password-file)
    __keychainctl_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--password-file')
        return
        ;;
    esac
}

_keychainctl_sync_leave() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--password-file)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--password-file')
        return
        ;;
    esac
}

_keychainctl_sync_history() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(-s --service --password-file)
    __keychainctl_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '-s'|'--service')
        return
        ;;
    '--password-file')
        return
        ;;
    esac
}

_keychainctl_sync_restore() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(-s --service --version --password-file)
    __keychainctl_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '-s'|'--service')
        return
        ;;
    '--version')
        return
        ;;
    '--password-file')
        return
        ;;
    esac
}

_keychainctl_secret-service() {
    repeating_flags=()
    non_repeating_flags=(--replace --version -h --help)
    repeating_options=()
    non_repeating_options=(--bus)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--bus')
        return
        ;;
    esac
}

_keychainctl_app-access() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|trust|untrust|policy)
        # Offer subcommand argument completions
        "_keychainctl_app-access_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list trust untrust policy' -- "${cur}"))
        ;;
    esac
}

_keychainctl_app-access_list() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--item)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--item')
        return
        ;;
    esac
}

_keychainctl_app-access_trust() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--item)
    __keychainctl_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--item')
        return
        ;;
    esac
}

_keychainctl_app-access_untrust() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--item)
    __keychainctl_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--item')
        return
        ;;
    esac
}

_keychainctl_app-access_policy() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--keychain)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--keychain')
        return
        ;;
    esac
}

_keychainctl_access-log() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--since)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--since')
        return
        ;;
    esac
}

_keychainctl_service() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    run|install|uninstall|migrate-in|migrate-out)
        # Offer subcommand argument completions
        "_keychainctl_service_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'run install uninstall migrate-in migrate-out' -- "${cur}"))
        ;;
    esac
}

_keychainctl_service_run() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--user --socket --state-dir --grants-dir --lock-after)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--user')
        return
        ;;
    '--socket')
        return
        ;;
    '--state-dir')
        return
        ;;
    '--grants-dir')
        return
        ;;
    '--lock-after')
        return
        ;;
    esac
}

_keychainctl_service_install() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--root --user --socket --state-dir --program)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--root')
        return
        ;;
    '--user')
        return
        ;;
    '--socket')
        return
        ;;
    '--state-dir')
        return
        ;;
    '--program')
        return
        ;;
    esac
}

_keychainctl_service_uninstall() {
    repeating_flags=()
    non_repeating_flags=(--purge --version -h --help)
    repeating_options=()
    non_repeating_options=(--root --state-dir)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--root')
        return
        ;;
    '--state-dir')
        return
        ;;
    esac
}

_keychainctl_service_migrate-in() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--group)
    non_repeating_options=(-k)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--group')
        return
        ;;
    '-k')
        return
        ;;
    esac
}

_keychainctl_service_migrate-out() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--group)
    non_repeating_options=(-k)
    __keychainctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--group')
        return
        ;;
    '-k')
        return
        ;;
    esac
}

_keychainctl_app() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    grant|revoke|list)
        # Offer subcommand argument completions
        "_keychainctl_app_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'grant revoke list' -- "${cur}"))
        ;;
    esac
}

_keychainctl_app_grant() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=(--access-group)
    non_repeating_options=(--application-identifier --sha256 -p)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--access-group')
        return
        ;;
    '--application-identifier')
        return
        ;;
    '--sha256')
        return
        ;;
    '-p')
        return
        ;;
    esac
}

_keychainctl_app_revoke() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(-p)
    __keychainctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '-p')
        return
        ;;
    esac
}

_keychainctl_app_list() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options 0
}

_keychainctl_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __keychainctl_offer_flags_options -1
}

complete -o filenames -F _keychainctl keychainctl
