# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_reconctl_global_optspecs
    string join \n database-url= config= o/output= actor= statement-timeout= lock-timeout= color= q/quiet v/verbose W/password read-only h/help V/version
end

function __fish_reconctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_reconctl_global_optspecs) -- $cmd 2>/dev/null
    or begin
        # The last word is an option still waiting for its value (`reconctl -o <TAB>`):
        # decide without it, so the option's values are offered.
        set -e cmd[-1]
        argparse -s (__fish_reconctl_global_optspecs) -- $cmd 2>/dev/null
        or return
    end
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_reconctl_using_subcommand
    set -l cmd (__fish_reconctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c reconctl -n "__fish_reconctl_needs_command" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_needs_command" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_needs_command" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_needs_command" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_needs_command" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_needs_command" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_needs_command" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_needs_command" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_needs_command" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_needs_command" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_needs_command" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c reconctl -n "__fish_reconctl_needs_command" -s V -l version -d 'Print version'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "migrate" -d 'Apply the embedded schema migrations, or list them'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "doctor" -d 'Check the connection, migrations, indexes and destinations'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "status" -d 'Count and oldest age per state and destination'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "jobs" -d 'List, show, reserve jobs; find the uncertain and stuck ones'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "ref" -d 'Print the external_ref of a business key'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "remote" -d 'Ask a destination what it holds'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "mark" -d 'Settle a job by hand: accepted, safe-to-retry or failed'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "sweep" -d 'Sweep expired leases (for cron)'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "reconcile" -d 'Look up every uncertain job and plan (or apply) the justified moves'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "plan" -d 'Bulk moves by filter: record a plan, review and approve it, apply it exactly as reviewed'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "events" -d 'The audit trail across jobs: who changed what, when, on what evidence; --follow streams it'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "metrics" -d 'Prometheus text exposition of counts and oldest ages'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "check" -d 'For cron and alerting: exit 5 when thresholds are exceeded'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "sandbox" -d 'A throwaway PostgreSQL and destination with realistic jobs'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "destination" -d 'Pause a destination during its outage (workers stop claiming its jobs), resume it, list pauses'
complete -c reconctl -n "__fish_reconctl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -l dry-run -d 'List what would be applied, apply nothing'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -s y -l yes -d 'Create the schema without asking, also in a database that already has other tables'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -f -a "status" -d 'List every migration: applied, pending, divergent or missing'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and not __fish_seen_subcommand_from status help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from status" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from status" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from status" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from status" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from status" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from status" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from status" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from status" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from status" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from status" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from help" -f -a "status" -d 'List every migration: applied, pending, divergent or missing'
complete -c reconctl -n "__fish_reconctl_using_subcommand migrate; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand doctor" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand doctor" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand doctor" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand doctor" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand doctor" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand doctor" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand doctor" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand doctor" -l recount -d 'Count every job (reads the whole table, concurrently with the workers) and compare with the counters status, metrics and check read; repair and record any difference'
complete -c reconctl -n "__fish_reconctl_using_subcommand doctor" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand doctor" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand doctor" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand doctor" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -l interval -d 'How often --watch refreshes, at least 1s [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -l watch -d 'Refresh every --interval until q or Ctrl-C: on a terminal in place, with what changed since it began; otherwise one report per interval (-o jsonl: one document a line)'
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand status" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -f -a "list" -d 'List jobs, filtered, in keyset pages'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -f -a "show" -d 'One job (by id or external_ref) with its event history'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -f -a "uncertain" -d 'Uncertain jobs, the longest uncertain first'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -f -a "stuck" -d 'Jobs waiting too long, and in-flight jobs whose lease expired'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -f -a "reserve" -d 'Reserve the one job of a publishing intent (the worker\'s first step)'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and not __fish_seen_subcommand_from list show uncertain stuck reserve help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l state -d 'Only jobs in this state (repeatable)' -r -f -a "pending\t''
in_flight\t''
uncertain\t''
accepted\t''
safe_to_retry\t''
failed\t''
conflict\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l destination -d 'Only jobs for this destination' -r -f -a "(reconctl __complete destinations 2>/dev/null)"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l tenant -d 'Only jobs of this tenant' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l article -d 'Only jobs of this article (with --tenant: of that tenant)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l older-than -d 'Only jobs that have been in their current state longer than this' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l external-ref -d 'Only the job with this external_ref' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l limit -d 'At most this many jobs (1 to 10000)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l cursor -d 'Continue after the last job of a previous page (its `next_cursor`)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from show" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from show" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from show" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from show" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from show" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from show" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from show" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from show" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from show" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -l destination -d 'Only jobs for this destination' -r -f -a "(reconctl __complete destinations 2>/dev/null)"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -l limit -d 'At most this many jobs (1 to 10000)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -l cursor -d 'Continue after the last job of a previous page (its `next_cursor`)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -l interval -d 'How often --watch refreshes, at least 1s [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -l watch -d 'Refresh every --interval until q or Ctrl-C: on a terminal in place, with what changed since it began; otherwise one report per interval (-o jsonl: one document a line)'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from uncertain" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -l older-than -d 'pending or safe_to_retry jobs waiting longer than this, and in_flight jobs whose lease expired longer ago than this' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -l destination -d 'Only jobs for this destination' -r -f -a "(reconctl __complete destinations 2>/dev/null)"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -l limit -d 'At most this many jobs (1 to 10000)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -l cursor -d 'Continue after the last job of a previous page (its `next_cursor`)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from stuck" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -l tenant -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -l article -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -l revision -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -l destination -r -f -a "(reconctl __complete destinations 2>/dev/null)"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -l payload-file -d 'The rendered payload (a regular file of at most 64 MiB); its SHA-256 is recorded' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -l payload-hash -d 'The payload\'s lowercase hex SHA-256' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from reserve" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from help" -f -a "list" -d 'List jobs, filtered, in keyset pages'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from help" -f -a "show" -d 'One job (by id or external_ref) with its event history'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from help" -f -a "uncertain" -d 'Uncertain jobs, the longest uncertain first'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from help" -f -a "stuck" -d 'Jobs waiting too long, and in-flight jobs whose lease expired'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from help" -f -a "reserve" -d 'Reserve the one job of a publishing intent (the worker\'s first step)'
complete -c reconctl -n "__fish_reconctl_using_subcommand jobs; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand ref" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand ref" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand ref" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand ref" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand ref" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand ref" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand ref" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand ref" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand ref" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand ref" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand ref" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand ref" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -f -a "lookup" -d 'Ask the destination whether it has the job; print outcome, matches and verdict'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and not __fish_seen_subcommand_from lookup help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -l destination -d 'The destination to ask (with --ref, without a job)' -r -f -a "(reconctl __complete destinations 2>/dev/null)"
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -l ref -d 'The external_ref to ask for (with --destination)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -l payload-hash -d 'Compare the matches\' content hash with this payload hash' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from lookup" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from help" -f -a "lookup" -d 'Ask the destination whether it has the job; print outcome, matches and verdict'
complete -c reconctl -n "__fish_reconctl_using_subcommand remote; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -f -a "accepted" -d 'uncertain/conflict/safe_to_retry → accepted: the destination has it (remote_id recorded)'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -f -a "safe-to-retry" -d 'uncertain/conflict → safe_to_retry: the destination does not have it, and the lookup is settled'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -f -a "failed" -d 'pending/safe_to_retry/uncertain/conflict → failed: an operator gave up, with a reason'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and not __fish_seen_subcommand_from accepted safe-to-retry failed help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -l reason -d 'Why (recorded in the event)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -l expect-version -d 'The version the runbook saw; refuse (exit 3) if the job has moved since' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -l remote-id -d 'The destination\'s id for the publication (else taken from the lookup\'s single match)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -l no-lookup -d 'Do not consult the destination first (the event records that the lookup was skipped)'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -s y -l yes -d 'Do not ask; needed to change anything without a terminal'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -l dry-run -d 'Show what would happen, change nothing'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -l accept-different-content -d 'Accept the destination\'s one copy although its content differs from the job\'s payload (a conflict); the event records that it was accepted on purpose'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from accepted" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -l reason -d 'Why (recorded in the event)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -l expect-version -d 'The version the runbook saw; refuse (exit 3) if the job has moved since' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -l no-lookup -d 'Do not consult the destination first (the event records that the lookup was skipped)'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -s y -l yes -d 'Do not ask; needed to change anything without a terminal'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -l dry-run -d 'Show what would happen, change nothing'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from safe-to-retry" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -l reason -d 'Why (recorded in the event)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -l expect-version -d 'The version the runbook saw; refuse (exit 3) if the job has moved since' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -l no-lookup -d 'Do not consult the destination first (the event records that the lookup was skipped)'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -s y -l yes -d 'Do not ask; needed to change anything without a terminal'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -l dry-run -d 'Show what would happen, change nothing'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from failed" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from help" -f -a "accepted" -d 'uncertain/conflict/safe_to_retry → accepted: the destination has it (remote_id recorded)'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from help" -f -a "safe-to-retry" -d 'uncertain/conflict → safe_to_retry: the destination does not have it, and the lookup is settled'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from help" -f -a "failed" -d 'pending/safe_to_retry/uncertain/conflict → failed: an operator gave up, with a reason'
complete -c reconctl -n "__fish_reconctl_using_subcommand mark; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -f -a "leases" -d 'Expired leases: never sent → pending, sent → uncertain; batched, SKIP LOCKED'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and not __fish_seen_subcommand_from leases help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -l grace -d 'Only leases that expired more than this long ago' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -l batch -d 'Jobs per transaction' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -l limit -d 'Move at most this many jobs in this run' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -l max-runtime -d 'Stop starting new batches after this long' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -l dry-run -d 'Count what would move, move nothing'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from leases" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from help" -f -a "leases" -d 'Expired leases: never sent → pending, sent → uncertain; batched, SKIP LOCKED'
complete -c reconctl -n "__fish_reconctl_using_subcommand sweep; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l destination -d 'Only jobs for this destination' -r -f -a "(reconctl __complete destinations 2>/dev/null)"
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l state -d 'Examine jobs in this state instead of uncertain ones: uncertain, conflict or safe_to_retry (repeatable); each moves only as the transition table allows from it' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l limit -d 'Examine at most this many uncertain jobs' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l concurrency -d 'Lookups in flight at once' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l rps -d 'At most this many lookups a second (protect the CMS during its own incident)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l max -d 'Refuse (exit 2, nothing moved) when more than this many jobs would move' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l reason -d 'With --save-plan: why (recorded in the plans and in each move\'s event)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l apply -d 'Perform the justified moves (else only print the plan)'
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -s y -l yes -d 'Do not ask before applying; needed without a terminal'
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l save-plan -d 'Record the justified moves to accepted and to safe_to_retry as plans (one per target state) instead of applying them: review, approve and `plan apply` them (SPEC §8)'
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand reconcile" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -f -a "mark" -d 'Record a plan: the jobs a filter (or --job) selects and the move each would make; nothing moves'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -f -a "list" -d 'The plans, newest first, with their status'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -f -a "show" -d 'One plan: every item with its status (planned, moved, skipped (why), refused (why))'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -f -a "approve" -d 'Approve a plan (by someone other than its creator; counts toward `[plans] approvals`)'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -f -a "discard" -d 'Discard a plan: it can no longer be applied'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -f -a "apply" -d 'Apply a plan: one guarded move per item at the version seen; resumable'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and not __fish_seen_subcommand_from mark list show approve discard apply help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -f -a "accepted" -d 'Plan uncertain/conflict/safe_to_retry → accepted (the destination has it; looked up now and at apply)'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -f -a "safe-to-retry" -d 'Plan uncertain/conflict → safe_to_retry, and failed → safe_to_retry (redrive); looked up now and at apply'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -f -a "failed" -d 'Plan pending/safe_to_retry/uncertain/conflict → failed (give up)'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from mark" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from list" -l limit -d 'At most this many plans' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from list" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from list" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from list" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from list" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from list" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from list" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from list" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from list" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from show" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from show" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from show" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from show" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from show" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from show" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from show" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from show" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from show" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from approve" -l reason -d 'Why (recorded in the plan\'s lifecycle)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from approve" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from approve" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from approve" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from approve" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from approve" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from approve" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from approve" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from approve" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from approve" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from approve" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from approve" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from approve" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from discard" -l reason -d 'Why (recorded in the plan\'s lifecycle)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from discard" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from discard" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from discard" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from discard" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from discard" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from discard" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from discard" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from discard" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from discard" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from discard" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from discard" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from discard" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -l concurrency -d 'Lookups in flight at once' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -s y -l yes -d 'Do not ask; needed without a terminal'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "mark" -d 'Record a plan: the jobs a filter (or --job) selects and the move each would make; nothing moves'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "list" -d 'The plans, newest first, with their status'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "show" -d 'One plan: every item with its status (planned, moved, skipped (why), refused (why))'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "approve" -d 'Approve a plan (by someone other than its creator; counts toward `[plans] approvals`)'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "discard" -d 'Discard a plan: it can no longer be applied'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "apply" -d 'Apply a plan: one guarded move per item at the version seen; resumable'
complete -c reconctl -n "__fish_reconctl_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l job -d 'Only the events of this job (its id, a unique prefix of it, or its external_ref)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l destination -d 'Only events of this destination\'s jobs, and its pauses and resumes' -r -f -a "(reconctl __complete destinations 2>/dev/null)"
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l actor -d 'Only events recorded by this actor, exactly as recorded (a person, a worker\'s lease owner, a sweeper)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l action -d 'Only events of this action (repeatable): a move (reserve, claim, mark_accepted, …) or pause, repause, resume, expire' -r -f -a "reserve\t''
claim\t''
renew\t''
mark_sent\t''
complete\t''
fail\t''
timed_out\t''
sweep_unsent\t''
sweep_sent\t''
mark_accepted\t''
mark_safe_to_retry\t''
mark_failed\t''
reconcile_accepted\t''
reconcile_safe_to_retry\t''
reconcile_conflict\t''
redrive\t''
pause\t''
repause\t''
resume\t''
expire\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l since -d 'Only events at or after this: a duration back from now (30m, 2h, 1d) or an RFC 3339 time (2024-05-01T09:00:00Z)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l until -d 'Only events before this: a duration back from now (1h: an hour ago) or an RFC 3339 time' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l limit -d 'At most this many events (1 to 10000) [default: 50]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l last -d 'Only the newest N events that match (1 to 10000), still printed oldest first, like `journalctl -n`; with --follow, these and then the new ones' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l cursor -d 'Continue after the last event of a previous page (its `next_cursor`)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l archive -d 'Read the events of this archive (`events archive`) instead of the database, with the same filters and output; its checksum is verified first' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l plan -d 'Only this plan\'s lifecycle (created, approved, apply, applied, discarded) and its moves (`reconctl plan`)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -s f -l follow -d 'Keep printing matching events as they commit, until Ctrl-C; with --since, --cursor or --last, first the ones already there'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -f -a "archive" -d 'Write every event of the months before MONTH to one compressed file (JSON lines, a manifest first) and record the archive'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -f -a "prune" -d 'Drop the monthly partitions of the audit log before MONTH that an archive holds in full'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and not __fish_seen_subcommand_from archive prune help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from archive" -l before -d 'Every event before the start of this month (YYYY-MM, UTC)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from archive" -l to -d 'The archive to write (must not exist): FILE.gz or FILE.zst' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from archive" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from archive" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from archive" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from archive" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from archive" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from archive" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from archive" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from archive" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from archive" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from archive" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from archive" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -l before -d 'Drop the months before the start of this month (YYYY-MM, UTC)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -s y -l yes -d 'Do not ask; needed to change anything without a terminal'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -l dry-run -d 'Show what would happen, change nothing'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from prune" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from help" -f -a "archive" -d 'Write every event of the months before MONTH to one compressed file (JSON lines, a manifest first) and record the archive'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from help" -f -a "prune" -d 'Drop the monthly partitions of the audit log before MONTH that an archive holds in full'
complete -c reconctl -n "__fish_reconctl_using_subcommand events; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand metrics" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand metrics" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand metrics" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand metrics" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand metrics" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand metrics" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand metrics" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand metrics" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand metrics" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand metrics" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand metrics" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand metrics" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -l max-uncertain -d 'Most uncertain jobs tolerated' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -l max-conflict -d 'Most conflict jobs tolerated' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -l stuck-after -d 'pending/safe_to_retry waiting longer than this, or a lease expired longer ago, is stuck (the rule of `jobs stuck --older-than`)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -l uncertain-after -d 'An uncertain job older than this is a violation even within --max-uncertain' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -l order-window -d 'Look for out-of-order publications (an older revision accepted after a newer one) among the jobs accepted this recently; run check more often than this' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -l max-pause -d 'A destination paused for longer than this is a violation (someone may have forgotten to resume it) [default: pauses are never a violation]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand check" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand sandbox" -l database-url -d 'Use and migrate this database (it must hold no jobs) instead of a throwaway cluster; DATABASE_URL is ignored here' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sandbox" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand sandbox" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand sandbox" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sandbox" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sandbox" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand sandbox" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand sandbox" -l drill -d 'Run the incident walk-through non-interactively, then clean up'
complete -c reconctl -n "__fish_reconctl_using_subcommand sandbox" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand sandbox" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand sandbox" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand sandbox" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand sandbox" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -f -a "list" -d 'Every destination that is configured, paused, or has open jobs: paused or not, by whom, why, until when'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -f -a "pause" -d 'Stop workers claiming one destination\'s jobs (in-flight jobs finish as usual)'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -f -a "resume" -d 'Let workers claim one destination\'s jobs again'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and not __fish_seen_subcommand_from list pause resume help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from list" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from list" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from list" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from list" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from list" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from list" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from list" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from list" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -l reason -d 'Why (recorded, and shown by status, jobs list and destination list)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -l for -d 'End the pause by itself after this long [default: until resumed]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -s y -l yes -d 'Do not ask; needed to change anything without a terminal'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -l dry-run -d 'Show what would happen, change nothing'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -l reason -d 'Why (recorded)' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -l database-url -d 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq\'s PG* variables, service file, ~/.pgpass]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -l config -d 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]' -r -F
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
jsonl\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -l actor -d 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -l statement-timeout -d 'Longest a single SQL statement may run, more than 0 [default: 10s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -l lock-timeout -d 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]' -r
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -l color -d 'When to use color (NO_COLOR is honoured with auto)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -s y -l yes -d 'Do not ask; needed to change anything without a terminal'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -l dry-run -d 'Show what would happen, change nothing'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -s q -l quiet -d 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -s v -l verbose -d 'Say more (e.g. `check` prints its findings even when healthy)'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -s W -l password -d 'Ask for the database password on the terminal when none is found (psql\'s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -l read-only -d 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from resume" -s h -l help -d 'Print help'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from help" -f -a "list" -d 'Every destination that is configured, paused, or has open jobs: paused or not, by whom, why, until when'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from help" -f -a "pause" -d 'Stop workers claiming one destination\'s jobs (in-flight jobs finish as usual)'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from help" -f -a "resume" -d 'Let workers claim one destination\'s jobs again'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "migrate" -d 'Apply the embedded schema migrations, or list them'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "doctor" -d 'Check the connection, migrations, indexes and destinations'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "status" -d 'Count and oldest age per state and destination'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "jobs" -d 'List, show, reserve jobs; find the uncertain and stuck ones'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "ref" -d 'Print the external_ref of a business key'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "remote" -d 'Ask a destination what it holds'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "mark" -d 'Settle a job by hand: accepted, safe-to-retry or failed'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "sweep" -d 'Sweep expired leases (for cron)'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "reconcile" -d 'Look up every uncertain job and plan (or apply) the justified moves'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "plan" -d 'Bulk moves by filter: record a plan, review and approve it, apply it exactly as reviewed'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "events" -d 'The audit trail across jobs: who changed what, when, on what evidence; --follow streams it'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "metrics" -d 'Prometheus text exposition of counts and oldest ages'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "check" -d 'For cron and alerting: exit 5 when thresholds are exceeded'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "sandbox" -d 'A throwaway PostgreSQL and destination with realistic jobs'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "destination" -d 'Pause a destination during its outage (workers stop claiming its jobs), resume it, list pauses'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and not __fish_seen_subcommand_from migrate doctor status jobs ref remote mark sweep reconcile plan events metrics check sandbox destination help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from migrate" -f -a "status" -d 'List every migration: applied, pending, divergent or missing'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from jobs" -f -a "list" -d 'List jobs, filtered, in keyset pages'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from jobs" -f -a "show" -d 'One job (by id or external_ref) with its event history'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from jobs" -f -a "uncertain" -d 'Uncertain jobs, the longest uncertain first'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from jobs" -f -a "stuck" -d 'Jobs waiting too long, and in-flight jobs whose lease expired'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from jobs" -f -a "reserve" -d 'Reserve the one job of a publishing intent (the worker\'s first step)'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from remote" -f -a "lookup" -d 'Ask the destination whether it has the job; print outcome, matches and verdict'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from mark" -f -a "accepted" -d 'uncertain/conflict/safe_to_retry → accepted: the destination has it (remote_id recorded)'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from mark" -f -a "safe-to-retry" -d 'uncertain/conflict → safe_to_retry: the destination does not have it, and the lookup is settled'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from mark" -f -a "failed" -d 'pending/safe_to_retry/uncertain/conflict → failed: an operator gave up, with a reason'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from sweep" -f -a "leases" -d 'Expired leases: never sent → pending, sent → uncertain; batched, SKIP LOCKED'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "mark" -d 'Record a plan: the jobs a filter (or --job) selects and the move each would make; nothing moves'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "list" -d 'The plans, newest first, with their status'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "show" -d 'One plan: every item with its status (planned, moved, skipped (why), refused (why))'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "approve" -d 'Approve a plan (by someone other than its creator; counts toward `[plans] approvals`)'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "discard" -d 'Discard a plan: it can no longer be applied'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "apply" -d 'Apply a plan: one guarded move per item at the version seen; resumable'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from events" -f -a "archive" -d 'Write every event of the months before MONTH to one compressed file (JSON lines, a manifest first) and record the archive'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from events" -f -a "prune" -d 'Drop the monthly partitions of the audit log before MONTH that an archive holds in full'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from destination" -f -a "list" -d 'Every destination that is configured, paused, or has open jobs: paused or not, by whom, why, until when'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from destination" -f -a "pause" -d 'Stop workers claiming one destination\'s jobs (in-flight jobs finish as usual)'
complete -c reconctl -n "__fish_reconctl_using_subcommand help; and __fish_seen_subcommand_from destination" -f -a "resume" -d 'Let workers claim one destination\'s jobs again'
complete -c reconctl -n "__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause resume" -f -a "(reconctl __complete destinations 2>/dev/null)"
