
use builtin;
use str;

set edit:completion:arg-completer[reconctl] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'reconctl'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'reconctl'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand migrate 'Apply the embedded schema migrations, or list them'
            cand doctor 'Check the connection, migrations, indexes and destinations'
            cand status 'Count and oldest age per state and destination'
            cand jobs 'List, show, reserve jobs; find the uncertain and stuck ones'
            cand ref 'Print the external_ref of a business key'
            cand remote 'Ask a destination what it holds'
            cand mark 'Settle a job by hand: accepted, safe-to-retry or failed'
            cand sweep 'Sweep expired leases (for cron)'
            cand reconcile 'Look up every uncertain job and plan (or apply) the justified moves'
            cand plan 'Bulk moves by filter: record a plan, review and approve it, apply it exactly as reviewed'
            cand events 'The audit trail across jobs: who changed what, when, on what evidence; --follow streams it'
            cand metrics 'Prometheus text exposition of counts and oldest ages'
            cand check 'For cron and alerting: exit 5 when thresholds are exceeded'
            cand sandbox 'A throwaway PostgreSQL and destination with realistic jobs'
            cand destination 'Pause a destination during its outage (workers stop claiming its jobs), resume it, list pauses'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;migrate'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand --dry-run 'List what would be applied, apply nothing'
            cand -y 'Create the schema without asking, also in a database that already has other tables'
            cand --yes 'Create the schema without asking, also in a database that already has other tables'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
            cand status 'List every migration: applied, pending, divergent or missing'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;migrate;status'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;migrate;help'= {
            cand status 'List every migration: applied, pending, divergent or missing'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;migrate;help;status'= {
        }
        &'reconctl;migrate;help;help'= {
        }
        &'reconctl;doctor'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand --recount 'Count every job (reads the whole table, concurrently with the workers) and compare with the counters status, metrics and check read; repair and record any difference'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;status'= {
            cand --interval 'How often --watch refreshes, at least 1s [default: 2s]'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand --watch 'Refresh every --interval until q or Ctrl-C: on a terminal in place, with what changed since it began; otherwise one report per interval (-o jsonl: one document a line)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;jobs'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
            cand list 'List jobs, filtered, in keyset pages'
            cand show 'One job (by id or external_ref) with its event history'
            cand uncertain 'Uncertain jobs, the longest uncertain first'
            cand stuck 'Jobs waiting too long, and in-flight jobs whose lease expired'
            cand reserve 'Reserve the one job of a publishing intent (the worker''s first step)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;jobs;list'= {
            cand --state 'Only jobs in this state (repeatable)'
            cand --destination 'Only jobs for this destination'
            cand --tenant 'Only jobs of this tenant'
            cand --article 'Only jobs of this article (with --tenant: of that tenant)'
            cand --older-than 'Only jobs that have been in their current state longer than this'
            cand --external-ref 'Only the job with this external_ref'
            cand --limit 'At most this many jobs (1 to 10000)'
            cand --cursor 'Continue after the last job of a previous page (its `next_cursor`)'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;jobs;show'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;jobs;uncertain'= {
            cand --destination 'Only jobs for this destination'
            cand --limit 'At most this many jobs (1 to 10000)'
            cand --cursor 'Continue after the last job of a previous page (its `next_cursor`)'
            cand --interval 'How often --watch refreshes, at least 1s [default: 2s]'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand --watch 'Refresh every --interval until q or Ctrl-C: on a terminal in place, with what changed since it began; otherwise one report per interval (-o jsonl: one document a line)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;jobs;stuck'= {
            cand --older-than 'pending or safe_to_retry jobs waiting longer than this, and in_flight jobs whose lease expired longer ago than this'
            cand --destination 'Only jobs for this destination'
            cand --limit 'At most this many jobs (1 to 10000)'
            cand --cursor 'Continue after the last job of a previous page (its `next_cursor`)'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;jobs;reserve'= {
            cand --tenant 'tenant'
            cand --article 'article'
            cand --revision 'revision'
            cand --destination 'destination'
            cand --payload-file 'The rendered payload (a regular file of at most 64 MiB); its SHA-256 is recorded'
            cand --payload-hash 'The payload''s lowercase hex SHA-256'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;jobs;help'= {
            cand list 'List jobs, filtered, in keyset pages'
            cand show 'One job (by id or external_ref) with its event history'
            cand uncertain 'Uncertain jobs, the longest uncertain first'
            cand stuck 'Jobs waiting too long, and in-flight jobs whose lease expired'
            cand reserve 'Reserve the one job of a publishing intent (the worker''s first step)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;jobs;help;list'= {
        }
        &'reconctl;jobs;help;show'= {
        }
        &'reconctl;jobs;help;uncertain'= {
        }
        &'reconctl;jobs;help;stuck'= {
        }
        &'reconctl;jobs;help;reserve'= {
        }
        &'reconctl;jobs;help;help'= {
        }
        &'reconctl;ref'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;remote'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
            cand lookup 'Ask the destination whether it has the job; print outcome, matches and verdict'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;remote;lookup'= {
            cand --destination 'The destination to ask (with --ref, without a job)'
            cand --ref 'The external_ref to ask for (with --destination)'
            cand --payload-hash 'Compare the matches'' content hash with this payload hash'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;remote;help'= {
            cand lookup 'Ask the destination whether it has the job; print outcome, matches and verdict'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;remote;help;lookup'= {
        }
        &'reconctl;remote;help;help'= {
        }
        &'reconctl;mark'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
            cand accepted 'uncertain/conflict/safe_to_retry → accepted: the destination has it (remote_id recorded)'
            cand safe-to-retry 'uncertain/conflict → safe_to_retry: the destination does not have it, and the lookup is settled'
            cand failed 'pending/safe_to_retry/uncertain/conflict → failed: an operator gave up, with a reason'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;mark;accepted'= {
            cand --reason 'Why (recorded in the event)'
            cand --expect-version 'The version the runbook saw; refuse (exit 3) if the job has moved since'
            cand --remote-id 'The destination''s id for the publication (else taken from the lookup''s single match)'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand --no-lookup 'Do not consult the destination first (the event records that the lookup was skipped)'
            cand -y 'Do not ask; needed to change anything without a terminal'
            cand --yes 'Do not ask; needed to change anything without a terminal'
            cand --dry-run 'Show what would happen, change nothing'
            cand --accept-different-content 'Accept the destination''s one copy although its content differs from the job''s payload (a conflict); the event records that it was accepted on purpose'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;mark;safe-to-retry'= {
            cand --reason 'Why (recorded in the event)'
            cand --expect-version 'The version the runbook saw; refuse (exit 3) if the job has moved since'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand --no-lookup 'Do not consult the destination first (the event records that the lookup was skipped)'
            cand -y 'Do not ask; needed to change anything without a terminal'
            cand --yes 'Do not ask; needed to change anything without a terminal'
            cand --dry-run 'Show what would happen, change nothing'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;mark;failed'= {
            cand --reason 'Why (recorded in the event)'
            cand --expect-version 'The version the runbook saw; refuse (exit 3) if the job has moved since'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand --no-lookup 'Do not consult the destination first (the event records that the lookup was skipped)'
            cand -y 'Do not ask; needed to change anything without a terminal'
            cand --yes 'Do not ask; needed to change anything without a terminal'
            cand --dry-run 'Show what would happen, change nothing'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;mark;help'= {
            cand accepted 'uncertain/conflict/safe_to_retry → accepted: the destination has it (remote_id recorded)'
            cand safe-to-retry 'uncertain/conflict → safe_to_retry: the destination does not have it, and the lookup is settled'
            cand failed 'pending/safe_to_retry/uncertain/conflict → failed: an operator gave up, with a reason'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;mark;help;accepted'= {
        }
        &'reconctl;mark;help;safe-to-retry'= {
        }
        &'reconctl;mark;help;failed'= {
        }
        &'reconctl;mark;help;help'= {
        }
        &'reconctl;sweep'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
            cand leases 'Expired leases: never sent → pending, sent → uncertain; batched, SKIP LOCKED'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;sweep;leases'= {
            cand --grace 'Only leases that expired more than this long ago'
            cand --batch 'Jobs per transaction'
            cand --limit 'Move at most this many jobs in this run'
            cand --max-runtime 'Stop starting new batches after this long'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand --dry-run 'Count what would move, move nothing'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;sweep;help'= {
            cand leases 'Expired leases: never sent → pending, sent → uncertain; batched, SKIP LOCKED'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;sweep;help;leases'= {
        }
        &'reconctl;sweep;help;help'= {
        }
        &'reconctl;reconcile'= {
            cand --destination 'Only jobs for this destination'
            cand --state 'Examine jobs in this state instead of uncertain ones: uncertain, conflict or safe_to_retry (repeatable); each moves only as the transition table allows from it'
            cand --limit 'Examine at most this many uncertain jobs'
            cand --concurrency 'Lookups in flight at once'
            cand --rps 'At most this many lookups a second (protect the CMS during its own incident)'
            cand --max 'Refuse (exit 2, nothing moved) when more than this many jobs would move'
            cand --reason 'With --save-plan: why (recorded in the plans and in each move''s event)'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand --apply 'Perform the justified moves (else only print the plan)'
            cand -y 'Do not ask before applying; needed without a terminal'
            cand --yes 'Do not ask before applying; needed without a terminal'
            cand --save-plan 'Record the justified moves to accepted and to safe_to_retry as plans (one per target state) instead of applying them: review, approve and `plan apply` them (SPEC §8)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;plan'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
            cand mark 'Record a plan: the jobs a filter (or --job) selects and the move each would make; nothing moves'
            cand list 'The plans, newest first, with their status'
            cand show 'One plan: every item with its status (planned, moved, skipped (why), refused (why))'
            cand approve 'Approve a plan (by someone other than its creator; counts toward `[plans] approvals`)'
            cand discard 'Discard a plan: it can no longer be applied'
            cand apply 'Apply a plan: one guarded move per item at the version seen; resumable'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;plan;mark'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
            cand accepted 'Plan uncertain/conflict/safe_to_retry → accepted (the destination has it; looked up now and at apply)'
            cand safe-to-retry 'Plan uncertain/conflict → safe_to_retry, and failed → safe_to_retry (redrive); looked up now and at apply'
            cand failed 'Plan pending/safe_to_retry/uncertain/conflict → failed (give up)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;plan;mark;accepted'= {
            cand --reason 'Why (recorded in the plan, and in each move''s event when it is applied)'
            cand --state 'Only jobs in this state (repeatable; default: every state the move leaves)'
            cand --destination 'Only jobs for this destination'
            cand --tenant 'Only jobs of this tenant'
            cand --article 'Only jobs of this article (with --tenant: of that tenant)'
            cand --older-than 'Only jobs that have been in their current state longer than this'
            cand --limit 'At most this many jobs (the oldest first)'
            cand --job 'This job (repeatable; instead of the filters)'
            cand --expires 'How long the plan may be applied (default 24h)'
            cand --concurrency 'Lookups in flight at once'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand --no-lookup 'Do not ask the destination (now or at apply); recorded in the plan and in every event'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;plan;mark;safe-to-retry'= {
            cand --reason 'Why (recorded in the plan, and in each move''s event when it is applied)'
            cand --state 'Only jobs in this state (repeatable; default: every state the move leaves)'
            cand --destination 'Only jobs for this destination'
            cand --tenant 'Only jobs of this tenant'
            cand --article 'Only jobs of this article (with --tenant: of that tenant)'
            cand --older-than 'Only jobs that have been in their current state longer than this'
            cand --limit 'At most this many jobs (the oldest first)'
            cand --job 'This job (repeatable; instead of the filters)'
            cand --expires 'How long the plan may be applied (default 24h)'
            cand --concurrency 'Lookups in flight at once'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand --no-lookup 'Do not ask the destination (now or at apply); recorded in the plan and in every event'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;plan;mark;failed'= {
            cand --reason 'Why (recorded in the plan, and in each move''s event when it is applied)'
            cand --state 'Only jobs in this state (repeatable; default: every state the move leaves)'
            cand --destination 'Only jobs for this destination'
            cand --tenant 'Only jobs of this tenant'
            cand --article 'Only jobs of this article (with --tenant: of that tenant)'
            cand --older-than 'Only jobs that have been in their current state longer than this'
            cand --limit 'At most this many jobs (the oldest first)'
            cand --job 'This job (repeatable; instead of the filters)'
            cand --expires 'How long the plan may be applied (default 24h)'
            cand --concurrency 'Lookups in flight at once'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand --no-lookup 'Do not ask the destination (now or at apply); recorded in the plan and in every event'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;plan;mark;help'= {
            cand accepted 'Plan uncertain/conflict/safe_to_retry → accepted (the destination has it; looked up now and at apply)'
            cand safe-to-retry 'Plan uncertain/conflict → safe_to_retry, and failed → safe_to_retry (redrive); looked up now and at apply'
            cand failed 'Plan pending/safe_to_retry/uncertain/conflict → failed (give up)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;plan;mark;help;accepted'= {
        }
        &'reconctl;plan;mark;help;safe-to-retry'= {
        }
        &'reconctl;plan;mark;help;failed'= {
        }
        &'reconctl;plan;mark;help;help'= {
        }
        &'reconctl;plan;list'= {
            cand --limit 'At most this many plans'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;plan;show'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;plan;approve'= {
            cand --reason 'Why (recorded in the plan''s lifecycle)'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;plan;discard'= {
            cand --reason 'Why (recorded in the plan''s lifecycle)'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;plan;apply'= {
            cand --concurrency 'Lookups in flight at once'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -y 'Do not ask; needed without a terminal'
            cand --yes 'Do not ask; needed without a terminal'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;plan;help'= {
            cand mark 'Record a plan: the jobs a filter (or --job) selects and the move each would make; nothing moves'
            cand list 'The plans, newest first, with their status'
            cand show 'One plan: every item with its status (planned, moved, skipped (why), refused (why))'
            cand approve 'Approve a plan (by someone other than its creator; counts toward `[plans] approvals`)'
            cand discard 'Discard a plan: it can no longer be applied'
            cand apply 'Apply a plan: one guarded move per item at the version seen; resumable'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;plan;help;mark'= {
            cand accepted 'Plan uncertain/conflict/safe_to_retry → accepted (the destination has it; looked up now and at apply)'
            cand safe-to-retry 'Plan uncertain/conflict → safe_to_retry, and failed → safe_to_retry (redrive); looked up now and at apply'
            cand failed 'Plan pending/safe_to_retry/uncertain/conflict → failed (give up)'
        }
        &'reconctl;plan;help;mark;accepted'= {
        }
        &'reconctl;plan;help;mark;safe-to-retry'= {
        }
        &'reconctl;plan;help;mark;failed'= {
        }
        &'reconctl;plan;help;list'= {
        }
        &'reconctl;plan;help;show'= {
        }
        &'reconctl;plan;help;approve'= {
        }
        &'reconctl;plan;help;discard'= {
        }
        &'reconctl;plan;help;apply'= {
        }
        &'reconctl;plan;help;help'= {
        }
        &'reconctl;events'= {
            cand --job 'Only the events of this job (its id, a unique prefix of it, or its external_ref)'
            cand --destination 'Only events of this destination''s jobs, and its pauses and resumes'
            cand --actor 'Only events recorded by this actor, exactly as recorded (a person, a worker''s lease owner, a sweeper)'
            cand --action 'Only events of this action (repeatable): a move (reserve, claim, mark_accepted, …) or pause, repause, resume, expire'
            cand --since 'Only events at or after this: a duration back from now (30m, 2h, 1d) or an RFC 3339 time (2024-05-01T09:00:00Z)'
            cand --until 'Only events before this: a duration back from now (1h: an hour ago) or an RFC 3339 time'
            cand --limit 'At most this many events (1 to 10000) [default: 50]'
            cand --last 'Only the newest N events that match (1 to 10000), still printed oldest first, like `journalctl -n`; with --follow, these and then the new ones'
            cand --cursor 'Continue after the last event of a previous page (its `next_cursor`)'
            cand --archive 'Read the events of this archive (`events archive`) instead of the database, with the same filters and output; its checksum is verified first'
            cand --plan 'Only this plan''s lifecycle (created, approved, apply, applied, discarded) and its moves (`reconctl plan`)'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -f 'Keep printing matching events as they commit, until Ctrl-C; with --since, --cursor or --last, first the ones already there'
            cand --follow 'Keep printing matching events as they commit, until Ctrl-C; with --since, --cursor or --last, first the ones already there'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
            cand archive 'Write every event of the months before MONTH to one compressed file (JSON lines, a manifest first) and record the archive'
            cand prune 'Drop the monthly partitions of the audit log before MONTH that an archive holds in full'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;events;archive'= {
            cand --before 'Every event before the start of this month (YYYY-MM, UTC)'
            cand --to 'The archive to write (must not exist): FILE.gz or FILE.zst'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;events;prune'= {
            cand --before 'Drop the months before the start of this month (YYYY-MM, UTC)'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -y 'Do not ask; needed to change anything without a terminal'
            cand --yes 'Do not ask; needed to change anything without a terminal'
            cand --dry-run 'Show what would happen, change nothing'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;events;help'= {
            cand archive 'Write every event of the months before MONTH to one compressed file (JSON lines, a manifest first) and record the archive'
            cand prune 'Drop the monthly partitions of the audit log before MONTH that an archive holds in full'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;events;help;archive'= {
        }
        &'reconctl;events;help;prune'= {
        }
        &'reconctl;events;help;help'= {
        }
        &'reconctl;metrics'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;check'= {
            cand --max-uncertain 'Most uncertain jobs tolerated'
            cand --max-conflict 'Most conflict jobs tolerated'
            cand --stuck-after 'pending/safe_to_retry waiting longer than this, or a lease expired longer ago, is stuck (the rule of `jobs stuck --older-than`)'
            cand --uncertain-after 'An uncertain job older than this is a violation even within --max-uncertain'
            cand --order-window 'Look for out-of-order publications (an older revision accepted after a newer one) among the jobs accepted this recently; run check more often than this'
            cand --max-pause 'A destination paused for longer than this is a violation (someone may have forgotten to resume it) [default: pauses are never a violation]'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;sandbox'= {
            cand --database-url 'Use and migrate this database (it must hold no jobs) instead of a throwaway cluster; DATABASE_URL is ignored here'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand --drill 'Run the incident walk-through non-interactively, then clean up'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;destination'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
            cand list 'Every destination that is configured, paused, or has open jobs: paused or not, by whom, why, until when'
            cand pause 'Stop workers claiming one destination''s jobs (in-flight jobs finish as usual)'
            cand resume 'Let workers claim one destination''s jobs again'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;destination;list'= {
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;destination;pause'= {
            cand --reason 'Why (recorded, and shown by status, jobs list and destination list)'
            cand --for 'End the pause by itself after this long [default: until resumed]'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -y 'Do not ask; needed to change anything without a terminal'
            cand --yes 'Do not ask; needed to change anything without a terminal'
            cand --dry-run 'Show what would happen, change nothing'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;destination;resume'= {
            cand --reason 'Why (recorded)'
            cand --database-url 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]'
            cand --config 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --actor 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]'
            cand --statement-timeout 'Longest a single SQL statement may run, more than 0 [default: 10s]'
            cand --lock-timeout 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]'
            cand --color 'When to use color (NO_COLOR is honoured with auto)'
            cand -y 'Do not ask; needed to change anything without a terminal'
            cand --yes 'Do not ask; needed to change anything without a terminal'
            cand --dry-run 'Show what would happen, change nothing'
            cand -q 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand --quiet 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr'
            cand -v 'Say more (e.g. `check` prints its findings even when healthy)'
            cand --verbose 'Say more (e.g. `check` prints its findings even when healthy)'
            cand -W 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --password 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed'
            cand --read-only 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'reconctl;destination;help'= {
            cand list 'Every destination that is configured, paused, or has open jobs: paused or not, by whom, why, until when'
            cand pause 'Stop workers claiming one destination''s jobs (in-flight jobs finish as usual)'
            cand resume 'Let workers claim one destination''s jobs again'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;destination;help;list'= {
        }
        &'reconctl;destination;help;pause'= {
        }
        &'reconctl;destination;help;resume'= {
        }
        &'reconctl;destination;help;help'= {
        }
        &'reconctl;help'= {
            cand migrate 'Apply the embedded schema migrations, or list them'
            cand doctor 'Check the connection, migrations, indexes and destinations'
            cand status 'Count and oldest age per state and destination'
            cand jobs 'List, show, reserve jobs; find the uncertain and stuck ones'
            cand ref 'Print the external_ref of a business key'
            cand remote 'Ask a destination what it holds'
            cand mark 'Settle a job by hand: accepted, safe-to-retry or failed'
            cand sweep 'Sweep expired leases (for cron)'
            cand reconcile 'Look up every uncertain job and plan (or apply) the justified moves'
            cand plan 'Bulk moves by filter: record a plan, review and approve it, apply it exactly as reviewed'
            cand events 'The audit trail across jobs: who changed what, when, on what evidence; --follow streams it'
            cand metrics 'Prometheus text exposition of counts and oldest ages'
            cand check 'For cron and alerting: exit 5 when thresholds are exceeded'
            cand sandbox 'A throwaway PostgreSQL and destination with realistic jobs'
            cand destination 'Pause a destination during its outage (workers stop claiming its jobs), resume it, list pauses'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'reconctl;help;migrate'= {
            cand status 'List every migration: applied, pending, divergent or missing'
        }
        &'reconctl;help;migrate;status'= {
        }
        &'reconctl;help;doctor'= {
        }
        &'reconctl;help;status'= {
        }
        &'reconctl;help;jobs'= {
            cand list 'List jobs, filtered, in keyset pages'
            cand show 'One job (by id or external_ref) with its event history'
            cand uncertain 'Uncertain jobs, the longest uncertain first'
            cand stuck 'Jobs waiting too long, and in-flight jobs whose lease expired'
            cand reserve 'Reserve the one job of a publishing intent (the worker''s first step)'
        }
        &'reconctl;help;jobs;list'= {
        }
        &'reconctl;help;jobs;show'= {
        }
        &'reconctl;help;jobs;uncertain'= {
        }
        &'reconctl;help;jobs;stuck'= {
        }
        &'reconctl;help;jobs;reserve'= {
        }
        &'reconctl;help;ref'= {
        }
        &'reconctl;help;remote'= {
            cand lookup 'Ask the destination whether it has the job; print outcome, matches and verdict'
        }
        &'reconctl;help;remote;lookup'= {
        }
        &'reconctl;help;mark'= {
            cand accepted 'uncertain/conflict/safe_to_retry → accepted: the destination has it (remote_id recorded)'
            cand safe-to-retry 'uncertain/conflict → safe_to_retry: the destination does not have it, and the lookup is settled'
            cand failed 'pending/safe_to_retry/uncertain/conflict → failed: an operator gave up, with a reason'
        }
        &'reconctl;help;mark;accepted'= {
        }
        &'reconctl;help;mark;safe-to-retry'= {
        }
        &'reconctl;help;mark;failed'= {
        }
        &'reconctl;help;sweep'= {
            cand leases 'Expired leases: never sent → pending, sent → uncertain; batched, SKIP LOCKED'
        }
        &'reconctl;help;sweep;leases'= {
        }
        &'reconctl;help;reconcile'= {
        }
        &'reconctl;help;plan'= {
            cand mark 'Record a plan: the jobs a filter (or --job) selects and the move each would make; nothing moves'
            cand list 'The plans, newest first, with their status'
            cand show 'One plan: every item with its status (planned, moved, skipped (why), refused (why))'
            cand approve 'Approve a plan (by someone other than its creator; counts toward `[plans] approvals`)'
            cand discard 'Discard a plan: it can no longer be applied'
            cand apply 'Apply a plan: one guarded move per item at the version seen; resumable'
        }
        &'reconctl;help;plan;mark'= {
            cand accepted 'Plan uncertain/conflict/safe_to_retry → accepted (the destination has it; looked up now and at apply)'
            cand safe-to-retry 'Plan uncertain/conflict → safe_to_retry, and failed → safe_to_retry (redrive); looked up now and at apply'
            cand failed 'Plan pending/safe_to_retry/uncertain/conflict → failed (give up)'
        }
        &'reconctl;help;plan;mark;accepted'= {
        }
        &'reconctl;help;plan;mark;safe-to-retry'= {
        }
        &'reconctl;help;plan;mark;failed'= {
        }
        &'reconctl;help;plan;list'= {
        }
        &'reconctl;help;plan;show'= {
        }
        &'reconctl;help;plan;approve'= {
        }
        &'reconctl;help;plan;discard'= {
        }
        &'reconctl;help;plan;apply'= {
        }
        &'reconctl;help;events'= {
            cand archive 'Write every event of the months before MONTH to one compressed file (JSON lines, a manifest first) and record the archive'
            cand prune 'Drop the monthly partitions of the audit log before MONTH that an archive holds in full'
        }
        &'reconctl;help;events;archive'= {
        }
        &'reconctl;help;events;prune'= {
        }
        &'reconctl;help;metrics'= {
        }
        &'reconctl;help;check'= {
        }
        &'reconctl;help;sandbox'= {
        }
        &'reconctl;help;destination'= {
            cand list 'Every destination that is configured, paused, or has open jobs: paused or not, by whom, why, until when'
            cand pause 'Stop workers claiming one destination''s jobs (in-flight jobs finish as usual)'
            cand resume 'Let workers claim one destination''s jobs again'
        }
        &'reconctl;help;destination;list'= {
        }
        &'reconctl;help;destination;pause'= {
        }
        &'reconctl;help;destination;resume'= {
        }
        &'reconctl;help;help'= {
        }
    ]
    $completions[$command]
}
