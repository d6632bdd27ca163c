
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'reconctl' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'reconctl'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'reconctl' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Apply the embedded schema migrations, or list them')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the connection, migrations, indexes and destinations')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Count and oldest age per state and destination')
            [CompletionResult]::new('jobs', 'jobs', [CompletionResultType]::ParameterValue, 'List, show, reserve jobs; find the uncertain and stuck ones')
            [CompletionResult]::new('ref', 'ref', [CompletionResultType]::ParameterValue, 'Print the external_ref of a business key')
            [CompletionResult]::new('remote', 'remote', [CompletionResultType]::ParameterValue, 'Ask a destination what it holds')
            [CompletionResult]::new('mark', 'mark', [CompletionResultType]::ParameterValue, 'Settle a job by hand: accepted, safe-to-retry or failed')
            [CompletionResult]::new('sweep', 'sweep', [CompletionResultType]::ParameterValue, 'Sweep expired leases (for cron)')
            [CompletionResult]::new('reconcile', 'reconcile', [CompletionResultType]::ParameterValue, 'Look up every uncertain job and plan (or apply) the justified moves')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Bulk moves by filter: record a plan, review and approve it, apply it exactly as reviewed')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'The audit trail across jobs: who changed what, when, on what evidence; --follow streams it')
            [CompletionResult]::new('metrics', 'metrics', [CompletionResultType]::ParameterValue, 'Prometheus text exposition of counts and oldest ages')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'For cron and alerting: exit 5 when thresholds are exceeded')
            [CompletionResult]::new('sandbox', 'sandbox', [CompletionResultType]::ParameterValue, 'A throwaway PostgreSQL and destination with realistic jobs')
            [CompletionResult]::new('destination', 'destination', [CompletionResultType]::ParameterValue, 'Pause a destination during its outage (workers stop claiming its jobs), resume it, list pauses')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;migrate' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'List what would be applied, apply nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Create the schema without asking, also in a database that already has other tables')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Create the schema without asking, also in a database that already has other tables')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'List every migration: applied, pending, divergent or missing')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;migrate;status' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;migrate;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'List every migration: applied, pending, divergent or missing')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;migrate;help;status' {
            break
        }
        'reconctl;migrate;help;help' {
            break
        }
        'reconctl;doctor' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('--recount', '--recount', [CompletionResultType]::ParameterName, 'Count every job (reads the whole table, concurrently with the workers) and compare with the counters status, metrics and check read; repair and record any difference')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;status' {
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'How often --watch refreshes, at least 1s [default: 2s]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Refresh every --interval until q or Ctrl-C: on a terminal in place, with what changed since it began; otherwise one report per interval (-o jsonl: one document a line)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;jobs' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List jobs, filtered, in keyset pages')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'One job (by id or external_ref) with its event history')
            [CompletionResult]::new('uncertain', 'uncertain', [CompletionResultType]::ParameterValue, 'Uncertain jobs, the longest uncertain first')
            [CompletionResult]::new('stuck', 'stuck', [CompletionResultType]::ParameterValue, 'Jobs waiting too long, and in-flight jobs whose lease expired')
            [CompletionResult]::new('reserve', 'reserve', [CompletionResultType]::ParameterValue, 'Reserve the one job of a publishing intent (the worker''s first step)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;jobs;list' {
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Only jobs in this state (repeatable)')
            [CompletionResult]::new('--destination', '--destination', [CompletionResultType]::ParameterName, 'Only jobs for this destination')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only jobs of this tenant')
            [CompletionResult]::new('--article', '--article', [CompletionResultType]::ParameterName, 'Only jobs of this article (with --tenant: of that tenant)')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only jobs that have been in their current state longer than this')
            [CompletionResult]::new('--external-ref', '--external-ref', [CompletionResultType]::ParameterName, 'Only the job with this external_ref')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many jobs (1 to 10000)')
            [CompletionResult]::new('--cursor', '--cursor', [CompletionResultType]::ParameterName, 'Continue after the last job of a previous page (its `next_cursor`)')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;jobs;show' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;jobs;uncertain' {
            [CompletionResult]::new('--destination', '--destination', [CompletionResultType]::ParameterName, 'Only jobs for this destination')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many jobs (1 to 10000)')
            [CompletionResult]::new('--cursor', '--cursor', [CompletionResultType]::ParameterName, 'Continue after the last job of a previous page (its `next_cursor`)')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'How often --watch refreshes, at least 1s [default: 2s]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Refresh every --interval until q or Ctrl-C: on a terminal in place, with what changed since it began; otherwise one report per interval (-o jsonl: one document a line)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;jobs;stuck' {
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'pending or safe_to_retry jobs waiting longer than this, and in_flight jobs whose lease expired longer ago than this')
            [CompletionResult]::new('--destination', '--destination', [CompletionResultType]::ParameterName, 'Only jobs for this destination')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many jobs (1 to 10000)')
            [CompletionResult]::new('--cursor', '--cursor', [CompletionResultType]::ParameterName, 'Continue after the last job of a previous page (its `next_cursor`)')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;jobs;reserve' {
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'tenant')
            [CompletionResult]::new('--article', '--article', [CompletionResultType]::ParameterName, 'article')
            [CompletionResult]::new('--revision', '--revision', [CompletionResultType]::ParameterName, 'revision')
            [CompletionResult]::new('--destination', '--destination', [CompletionResultType]::ParameterName, 'destination')
            [CompletionResult]::new('--payload-file', '--payload-file', [CompletionResultType]::ParameterName, 'The rendered payload (a regular file of at most 64 MiB); its SHA-256 is recorded')
            [CompletionResult]::new('--payload-hash', '--payload-hash', [CompletionResultType]::ParameterName, 'The payload''s lowercase hex SHA-256')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;jobs;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List jobs, filtered, in keyset pages')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'One job (by id or external_ref) with its event history')
            [CompletionResult]::new('uncertain', 'uncertain', [CompletionResultType]::ParameterValue, 'Uncertain jobs, the longest uncertain first')
            [CompletionResult]::new('stuck', 'stuck', [CompletionResultType]::ParameterValue, 'Jobs waiting too long, and in-flight jobs whose lease expired')
            [CompletionResult]::new('reserve', 'reserve', [CompletionResultType]::ParameterValue, 'Reserve the one job of a publishing intent (the worker''s first step)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;jobs;help;list' {
            break
        }
        'reconctl;jobs;help;show' {
            break
        }
        'reconctl;jobs;help;uncertain' {
            break
        }
        'reconctl;jobs;help;stuck' {
            break
        }
        'reconctl;jobs;help;reserve' {
            break
        }
        'reconctl;jobs;help;help' {
            break
        }
        'reconctl;ref' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;remote' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('lookup', 'lookup', [CompletionResultType]::ParameterValue, 'Ask the destination whether it has the job; print outcome, matches and verdict')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;remote;lookup' {
            [CompletionResult]::new('--destination', '--destination', [CompletionResultType]::ParameterName, 'The destination to ask (with --ref, without a job)')
            [CompletionResult]::new('--ref', '--ref', [CompletionResultType]::ParameterName, 'The external_ref to ask for (with --destination)')
            [CompletionResult]::new('--payload-hash', '--payload-hash', [CompletionResultType]::ParameterName, 'Compare the matches'' content hash with this payload hash')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;remote;help' {
            [CompletionResult]::new('lookup', 'lookup', [CompletionResultType]::ParameterValue, 'Ask the destination whether it has the job; print outcome, matches and verdict')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;remote;help;lookup' {
            break
        }
        'reconctl;remote;help;help' {
            break
        }
        'reconctl;mark' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('accepted', 'accepted', [CompletionResultType]::ParameterValue, 'uncertain/conflict/safe_to_retry → accepted: the destination has it (remote_id recorded)')
            [CompletionResult]::new('safe-to-retry', 'safe-to-retry', [CompletionResultType]::ParameterValue, 'uncertain/conflict → safe_to_retry: the destination does not have it, and the lookup is settled')
            [CompletionResult]::new('failed', 'failed', [CompletionResultType]::ParameterValue, 'pending/safe_to_retry/uncertain/conflict → failed: an operator gave up, with a reason')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;mark;accepted' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why (recorded in the event)')
            [CompletionResult]::new('--expect-version', '--expect-version', [CompletionResultType]::ParameterName, 'The version the runbook saw; refuse (exit 3) if the job has moved since')
            [CompletionResult]::new('--remote-id', '--remote-id', [CompletionResultType]::ParameterName, 'The destination''s id for the publication (else taken from the lookup''s single match)')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('--no-lookup', '--no-lookup', [CompletionResultType]::ParameterName, 'Do not consult the destination first (the event records that the lookup was skipped)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask; needed to change anything without a terminal')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask; needed to change anything without a terminal')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen, change nothing')
            [CompletionResult]::new('--accept-different-content', '--accept-different-content', [CompletionResultType]::ParameterName, 'Accept the destination''s one copy although its content differs from the job''s payload (a conflict); the event records that it was accepted on purpose')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;mark;safe-to-retry' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why (recorded in the event)')
            [CompletionResult]::new('--expect-version', '--expect-version', [CompletionResultType]::ParameterName, 'The version the runbook saw; refuse (exit 3) if the job has moved since')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('--no-lookup', '--no-lookup', [CompletionResultType]::ParameterName, 'Do not consult the destination first (the event records that the lookup was skipped)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask; needed to change anything without a terminal')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask; needed to change anything without a terminal')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen, change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;mark;failed' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why (recorded in the event)')
            [CompletionResult]::new('--expect-version', '--expect-version', [CompletionResultType]::ParameterName, 'The version the runbook saw; refuse (exit 3) if the job has moved since')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('--no-lookup', '--no-lookup', [CompletionResultType]::ParameterName, 'Do not consult the destination first (the event records that the lookup was skipped)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask; needed to change anything without a terminal')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask; needed to change anything without a terminal')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen, change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;mark;help' {
            [CompletionResult]::new('accepted', 'accepted', [CompletionResultType]::ParameterValue, 'uncertain/conflict/safe_to_retry → accepted: the destination has it (remote_id recorded)')
            [CompletionResult]::new('safe-to-retry', 'safe-to-retry', [CompletionResultType]::ParameterValue, 'uncertain/conflict → safe_to_retry: the destination does not have it, and the lookup is settled')
            [CompletionResult]::new('failed', 'failed', [CompletionResultType]::ParameterValue, 'pending/safe_to_retry/uncertain/conflict → failed: an operator gave up, with a reason')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;mark;help;accepted' {
            break
        }
        'reconctl;mark;help;safe-to-retry' {
            break
        }
        'reconctl;mark;help;failed' {
            break
        }
        'reconctl;mark;help;help' {
            break
        }
        'reconctl;sweep' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('leases', 'leases', [CompletionResultType]::ParameterValue, 'Expired leases: never sent → pending, sent → uncertain; batched, SKIP LOCKED')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;sweep;leases' {
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Only leases that expired more than this long ago')
            [CompletionResult]::new('--batch', '--batch', [CompletionResultType]::ParameterName, 'Jobs per transaction')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Move at most this many jobs in this run')
            [CompletionResult]::new('--max-runtime', '--max-runtime', [CompletionResultType]::ParameterName, 'Stop starting new batches after this long')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Count what would move, move nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;sweep;help' {
            [CompletionResult]::new('leases', 'leases', [CompletionResultType]::ParameterValue, 'Expired leases: never sent → pending, sent → uncertain; batched, SKIP LOCKED')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;sweep;help;leases' {
            break
        }
        'reconctl;sweep;help;help' {
            break
        }
        'reconctl;reconcile' {
            [CompletionResult]::new('--destination', '--destination', [CompletionResultType]::ParameterName, 'Only jobs for this destination')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Examine jobs in this state instead of uncertain ones: uncertain, conflict or safe_to_retry (repeatable); each moves only as the transition table allows from it')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Examine at most this many uncertain jobs')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Lookups in flight at once')
            [CompletionResult]::new('--rps', '--rps', [CompletionResultType]::ParameterName, 'At most this many lookups a second (protect the CMS during its own incident)')
            [CompletionResult]::new('--max', '--max', [CompletionResultType]::ParameterName, 'Refuse (exit 2, nothing moved) when more than this many jobs would move')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'With --save-plan: why (recorded in the plans and in each move''s event)')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('--apply', '--apply', [CompletionResultType]::ParameterName, 'Perform the justified moves (else only print the plan)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask before applying; needed without a terminal')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask before applying; needed without a terminal')
            [CompletionResult]::new('--save-plan', '--save-plan', [CompletionResultType]::ParameterName, 'Record the justified moves to accepted and to safe_to_retry as plans (one per target state) instead of applying them: review, approve and `plan apply` them (SPEC §8)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;plan' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('mark', 'mark', [CompletionResultType]::ParameterValue, 'Record a plan: the jobs a filter (or --job) selects and the move each would make; nothing moves')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The plans, newest first, with their status')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'One plan: every item with its status (planned, moved, skipped (why), refused (why))')
            [CompletionResult]::new('approve', 'approve', [CompletionResultType]::ParameterValue, 'Approve a plan (by someone other than its creator; counts toward `[plans] approvals`)')
            [CompletionResult]::new('discard', 'discard', [CompletionResultType]::ParameterValue, 'Discard a plan: it can no longer be applied')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Apply a plan: one guarded move per item at the version seen; resumable')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;plan;mark' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('accepted', 'accepted', [CompletionResultType]::ParameterValue, 'Plan uncertain/conflict/safe_to_retry → accepted (the destination has it; looked up now and at apply)')
            [CompletionResult]::new('safe-to-retry', 'safe-to-retry', [CompletionResultType]::ParameterValue, 'Plan uncertain/conflict → safe_to_retry, and failed → safe_to_retry (redrive); looked up now and at apply')
            [CompletionResult]::new('failed', 'failed', [CompletionResultType]::ParameterValue, 'Plan pending/safe_to_retry/uncertain/conflict → failed (give up)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;plan;mark;accepted' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why (recorded in the plan, and in each move''s event when it is applied)')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Only jobs in this state (repeatable; default: every state the move leaves)')
            [CompletionResult]::new('--destination', '--destination', [CompletionResultType]::ParameterName, 'Only jobs for this destination')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only jobs of this tenant')
            [CompletionResult]::new('--article', '--article', [CompletionResultType]::ParameterName, 'Only jobs of this article (with --tenant: of that tenant)')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only jobs that have been in their current state longer than this')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many jobs (the oldest first)')
            [CompletionResult]::new('--job', '--job', [CompletionResultType]::ParameterName, 'This job (repeatable; instead of the filters)')
            [CompletionResult]::new('--expires', '--expires', [CompletionResultType]::ParameterName, 'How long the plan may be applied (default 24h)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Lookups in flight at once')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('--no-lookup', '--no-lookup', [CompletionResultType]::ParameterName, 'Do not ask the destination (now or at apply); recorded in the plan and in every event')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;plan;mark;safe-to-retry' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why (recorded in the plan, and in each move''s event when it is applied)')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Only jobs in this state (repeatable; default: every state the move leaves)')
            [CompletionResult]::new('--destination', '--destination', [CompletionResultType]::ParameterName, 'Only jobs for this destination')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only jobs of this tenant')
            [CompletionResult]::new('--article', '--article', [CompletionResultType]::ParameterName, 'Only jobs of this article (with --tenant: of that tenant)')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only jobs that have been in their current state longer than this')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many jobs (the oldest first)')
            [CompletionResult]::new('--job', '--job', [CompletionResultType]::ParameterName, 'This job (repeatable; instead of the filters)')
            [CompletionResult]::new('--expires', '--expires', [CompletionResultType]::ParameterName, 'How long the plan may be applied (default 24h)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Lookups in flight at once')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('--no-lookup', '--no-lookup', [CompletionResultType]::ParameterName, 'Do not ask the destination (now or at apply); recorded in the plan and in every event')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;plan;mark;failed' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why (recorded in the plan, and in each move''s event when it is applied)')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Only jobs in this state (repeatable; default: every state the move leaves)')
            [CompletionResult]::new('--destination', '--destination', [CompletionResultType]::ParameterName, 'Only jobs for this destination')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'Only jobs of this tenant')
            [CompletionResult]::new('--article', '--article', [CompletionResultType]::ParameterName, 'Only jobs of this article (with --tenant: of that tenant)')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only jobs that have been in their current state longer than this')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many jobs (the oldest first)')
            [CompletionResult]::new('--job', '--job', [CompletionResultType]::ParameterName, 'This job (repeatable; instead of the filters)')
            [CompletionResult]::new('--expires', '--expires', [CompletionResultType]::ParameterName, 'How long the plan may be applied (default 24h)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Lookups in flight at once')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('--no-lookup', '--no-lookup', [CompletionResultType]::ParameterName, 'Do not ask the destination (now or at apply); recorded in the plan and in every event')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;plan;mark;help' {
            [CompletionResult]::new('accepted', 'accepted', [CompletionResultType]::ParameterValue, 'Plan uncertain/conflict/safe_to_retry → accepted (the destination has it; looked up now and at apply)')
            [CompletionResult]::new('safe-to-retry', 'safe-to-retry', [CompletionResultType]::ParameterValue, 'Plan uncertain/conflict → safe_to_retry, and failed → safe_to_retry (redrive); looked up now and at apply')
            [CompletionResult]::new('failed', 'failed', [CompletionResultType]::ParameterValue, 'Plan pending/safe_to_retry/uncertain/conflict → failed (give up)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;plan;mark;help;accepted' {
            break
        }
        'reconctl;plan;mark;help;safe-to-retry' {
            break
        }
        'reconctl;plan;mark;help;failed' {
            break
        }
        'reconctl;plan;mark;help;help' {
            break
        }
        'reconctl;plan;list' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many plans')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;plan;show' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;plan;approve' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why (recorded in the plan''s lifecycle)')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;plan;discard' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why (recorded in the plan''s lifecycle)')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;plan;apply' {
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Lookups in flight at once')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask; needed without a terminal')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask; needed without a terminal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;plan;help' {
            [CompletionResult]::new('mark', 'mark', [CompletionResultType]::ParameterValue, 'Record a plan: the jobs a filter (or --job) selects and the move each would make; nothing moves')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The plans, newest first, with their status')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'One plan: every item with its status (planned, moved, skipped (why), refused (why))')
            [CompletionResult]::new('approve', 'approve', [CompletionResultType]::ParameterValue, 'Approve a plan (by someone other than its creator; counts toward `[plans] approvals`)')
            [CompletionResult]::new('discard', 'discard', [CompletionResultType]::ParameterValue, 'Discard a plan: it can no longer be applied')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Apply a plan: one guarded move per item at the version seen; resumable')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;plan;help;mark' {
            [CompletionResult]::new('accepted', 'accepted', [CompletionResultType]::ParameterValue, 'Plan uncertain/conflict/safe_to_retry → accepted (the destination has it; looked up now and at apply)')
            [CompletionResult]::new('safe-to-retry', 'safe-to-retry', [CompletionResultType]::ParameterValue, 'Plan uncertain/conflict → safe_to_retry, and failed → safe_to_retry (redrive); looked up now and at apply')
            [CompletionResult]::new('failed', 'failed', [CompletionResultType]::ParameterValue, 'Plan pending/safe_to_retry/uncertain/conflict → failed (give up)')
            break
        }
        'reconctl;plan;help;mark;accepted' {
            break
        }
        'reconctl;plan;help;mark;safe-to-retry' {
            break
        }
        'reconctl;plan;help;mark;failed' {
            break
        }
        'reconctl;plan;help;list' {
            break
        }
        'reconctl;plan;help;show' {
            break
        }
        'reconctl;plan;help;approve' {
            break
        }
        'reconctl;plan;help;discard' {
            break
        }
        'reconctl;plan;help;apply' {
            break
        }
        'reconctl;plan;help;help' {
            break
        }
        'reconctl;events' {
            [CompletionResult]::new('--job', '--job', [CompletionResultType]::ParameterName, 'Only the events of this job (its id, a unique prefix of it, or its external_ref)')
            [CompletionResult]::new('--destination', '--destination', [CompletionResultType]::ParameterName, 'Only events of this destination''s jobs, and its pauses and resumes')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Only events recorded by this actor, exactly as recorded (a person, a worker''s lease owner, a sweeper)')
            [CompletionResult]::new('--action', '--action', [CompletionResultType]::ParameterName, 'Only events of this action (repeatable): a move (reserve, claim, mark_accepted, …) or pause, repause, resume, expire')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only events at or after this: a duration back from now (30m, 2h, 1d) or an RFC 3339 time (2024-05-01T09:00:00Z)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only events before this: a duration back from now (1h: an hour ago) or an RFC 3339 time')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many events (1 to 10000) [default: 50]')
            [CompletionResult]::new('--last', '--last', [CompletionResultType]::ParameterName, 'Only the newest N events that match (1 to 10000), still printed oldest first, like `journalctl -n`; with --follow, these and then the new ones')
            [CompletionResult]::new('--cursor', '--cursor', [CompletionResultType]::ParameterName, 'Continue after the last event of a previous page (its `next_cursor`)')
            [CompletionResult]::new('--archive', '--archive', [CompletionResultType]::ParameterName, 'Read the events of this archive (`events archive`) instead of the database, with the same filters and output; its checksum is verified first')
            [CompletionResult]::new('--plan', '--plan', [CompletionResultType]::ParameterName, 'Only this plan''s lifecycle (created, approved, apply, applied, discarded) and its moves (`reconctl plan`)')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Keep printing matching events as they commit, until Ctrl-C; with --since, --cursor or --last, first the ones already there')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Keep printing matching events as they commit, until Ctrl-C; with --since, --cursor or --last, first the ones already there')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'Write every event of the months before MONTH to one compressed file (JSON lines, a manifest first) and record the archive')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Drop the monthly partitions of the audit log before MONTH that an archive holds in full')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;events;archive' {
            [CompletionResult]::new('--before', '--before', [CompletionResultType]::ParameterName, 'Every event before the start of this month (YYYY-MM, UTC)')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The archive to write (must not exist): FILE.gz or FILE.zst')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;events;prune' {
            [CompletionResult]::new('--before', '--before', [CompletionResultType]::ParameterName, 'Drop the months before the start of this month (YYYY-MM, UTC)')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask; needed to change anything without a terminal')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask; needed to change anything without a terminal')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen, change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;events;help' {
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'Write every event of the months before MONTH to one compressed file (JSON lines, a manifest first) and record the archive')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Drop the monthly partitions of the audit log before MONTH that an archive holds in full')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;events;help;archive' {
            break
        }
        'reconctl;events;help;prune' {
            break
        }
        'reconctl;events;help;help' {
            break
        }
        'reconctl;metrics' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;check' {
            [CompletionResult]::new('--max-uncertain', '--max-uncertain', [CompletionResultType]::ParameterName, 'Most uncertain jobs tolerated')
            [CompletionResult]::new('--max-conflict', '--max-conflict', [CompletionResultType]::ParameterName, 'Most conflict jobs tolerated')
            [CompletionResult]::new('--stuck-after', '--stuck-after', [CompletionResultType]::ParameterName, 'pending/safe_to_retry waiting longer than this, or a lease expired longer ago, is stuck (the rule of `jobs stuck --older-than`)')
            [CompletionResult]::new('--uncertain-after', '--uncertain-after', [CompletionResultType]::ParameterName, 'An uncertain job older than this is a violation even within --max-uncertain')
            [CompletionResult]::new('--order-window', '--order-window', [CompletionResultType]::ParameterName, 'Look for out-of-order publications (an older revision accepted after a newer one) among the jobs accepted this recently; run check more often than this')
            [CompletionResult]::new('--max-pause', '--max-pause', [CompletionResultType]::ParameterName, 'A destination paused for longer than this is a violation (someone may have forgotten to resume it) [default: pauses are never a violation]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;sandbox' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'Use and migrate this database (it must hold no jobs) instead of a throwaway cluster; DATABASE_URL is ignored here')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('--drill', '--drill', [CompletionResultType]::ParameterName, 'Run the incident walk-through non-interactively, then clean up')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;destination' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every destination that is configured, paused, or has open jobs: paused or not, by whom, why, until when')
            [CompletionResult]::new('pause', 'pause', [CompletionResultType]::ParameterValue, 'Stop workers claiming one destination''s jobs (in-flight jobs finish as usual)')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Let workers claim one destination''s jobs again')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;destination;list' {
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;destination;pause' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why (recorded, and shown by status, jobs list and destination list)')
            [CompletionResult]::new('--for', '--for', [CompletionResultType]::ParameterName, 'End the pause by itself after this long [default: until resumed]')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask; needed to change anything without a terminal')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask; needed to change anything without a terminal')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen, change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;destination;resume' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why (recorded)')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq''s PG* variables, service file, ~/.pgpass]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]')
            [CompletionResult]::new('--statement-timeout', '--statement-timeout', [CompletionResultType]::ParameterName, 'Longest a single SQL statement may run, more than 0 [default: 10s]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color (NO_COLOR is honoured with auto)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask; needed to change anything without a terminal')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask; needed to change anything without a terminal')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would happen, change nothing')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more (e.g. `check` prints its findings even when healthy)')
            [CompletionResult]::new('-W', '-W ', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Ask for the database password on the terminal when none is found (psql''s -W): not in the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is echoed or printed')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Open every session read-only: inspection runs on any server of a multi-host URL, a hot standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'reconctl;destination;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every destination that is configured, paused, or has open jobs: paused or not, by whom, why, until when')
            [CompletionResult]::new('pause', 'pause', [CompletionResultType]::ParameterValue, 'Stop workers claiming one destination''s jobs (in-flight jobs finish as usual)')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Let workers claim one destination''s jobs again')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;destination;help;list' {
            break
        }
        'reconctl;destination;help;pause' {
            break
        }
        'reconctl;destination;help;resume' {
            break
        }
        'reconctl;destination;help;help' {
            break
        }
        'reconctl;help' {
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Apply the embedded schema migrations, or list them')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the connection, migrations, indexes and destinations')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Count and oldest age per state and destination')
            [CompletionResult]::new('jobs', 'jobs', [CompletionResultType]::ParameterValue, 'List, show, reserve jobs; find the uncertain and stuck ones')
            [CompletionResult]::new('ref', 'ref', [CompletionResultType]::ParameterValue, 'Print the external_ref of a business key')
            [CompletionResult]::new('remote', 'remote', [CompletionResultType]::ParameterValue, 'Ask a destination what it holds')
            [CompletionResult]::new('mark', 'mark', [CompletionResultType]::ParameterValue, 'Settle a job by hand: accepted, safe-to-retry or failed')
            [CompletionResult]::new('sweep', 'sweep', [CompletionResultType]::ParameterValue, 'Sweep expired leases (for cron)')
            [CompletionResult]::new('reconcile', 'reconcile', [CompletionResultType]::ParameterValue, 'Look up every uncertain job and plan (or apply) the justified moves')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Bulk moves by filter: record a plan, review and approve it, apply it exactly as reviewed')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'The audit trail across jobs: who changed what, when, on what evidence; --follow streams it')
            [CompletionResult]::new('metrics', 'metrics', [CompletionResultType]::ParameterValue, 'Prometheus text exposition of counts and oldest ages')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'For cron and alerting: exit 5 when thresholds are exceeded')
            [CompletionResult]::new('sandbox', 'sandbox', [CompletionResultType]::ParameterValue, 'A throwaway PostgreSQL and destination with realistic jobs')
            [CompletionResult]::new('destination', 'destination', [CompletionResultType]::ParameterValue, 'Pause a destination during its outage (workers stop claiming its jobs), resume it, list pauses')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'reconctl;help;migrate' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'List every migration: applied, pending, divergent or missing')
            break
        }
        'reconctl;help;migrate;status' {
            break
        }
        'reconctl;help;doctor' {
            break
        }
        'reconctl;help;status' {
            break
        }
        'reconctl;help;jobs' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List jobs, filtered, in keyset pages')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'One job (by id or external_ref) with its event history')
            [CompletionResult]::new('uncertain', 'uncertain', [CompletionResultType]::ParameterValue, 'Uncertain jobs, the longest uncertain first')
            [CompletionResult]::new('stuck', 'stuck', [CompletionResultType]::ParameterValue, 'Jobs waiting too long, and in-flight jobs whose lease expired')
            [CompletionResult]::new('reserve', 'reserve', [CompletionResultType]::ParameterValue, 'Reserve the one job of a publishing intent (the worker''s first step)')
            break
        }
        'reconctl;help;jobs;list' {
            break
        }
        'reconctl;help;jobs;show' {
            break
        }
        'reconctl;help;jobs;uncertain' {
            break
        }
        'reconctl;help;jobs;stuck' {
            break
        }
        'reconctl;help;jobs;reserve' {
            break
        }
        'reconctl;help;ref' {
            break
        }
        'reconctl;help;remote' {
            [CompletionResult]::new('lookup', 'lookup', [CompletionResultType]::ParameterValue, 'Ask the destination whether it has the job; print outcome, matches and verdict')
            break
        }
        'reconctl;help;remote;lookup' {
            break
        }
        'reconctl;help;mark' {
            [CompletionResult]::new('accepted', 'accepted', [CompletionResultType]::ParameterValue, 'uncertain/conflict/safe_to_retry → accepted: the destination has it (remote_id recorded)')
            [CompletionResult]::new('safe-to-retry', 'safe-to-retry', [CompletionResultType]::ParameterValue, 'uncertain/conflict → safe_to_retry: the destination does not have it, and the lookup is settled')
            [CompletionResult]::new('failed', 'failed', [CompletionResultType]::ParameterValue, 'pending/safe_to_retry/uncertain/conflict → failed: an operator gave up, with a reason')
            break
        }
        'reconctl;help;mark;accepted' {
            break
        }
        'reconctl;help;mark;safe-to-retry' {
            break
        }
        'reconctl;help;mark;failed' {
            break
        }
        'reconctl;help;sweep' {
            [CompletionResult]::new('leases', 'leases', [CompletionResultType]::ParameterValue, 'Expired leases: never sent → pending, sent → uncertain; batched, SKIP LOCKED')
            break
        }
        'reconctl;help;sweep;leases' {
            break
        }
        'reconctl;help;reconcile' {
            break
        }
        'reconctl;help;plan' {
            [CompletionResult]::new('mark', 'mark', [CompletionResultType]::ParameterValue, 'Record a plan: the jobs a filter (or --job) selects and the move each would make; nothing moves')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The plans, newest first, with their status')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'One plan: every item with its status (planned, moved, skipped (why), refused (why))')
            [CompletionResult]::new('approve', 'approve', [CompletionResultType]::ParameterValue, 'Approve a plan (by someone other than its creator; counts toward `[plans] approvals`)')
            [CompletionResult]::new('discard', 'discard', [CompletionResultType]::ParameterValue, 'Discard a plan: it can no longer be applied')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Apply a plan: one guarded move per item at the version seen; resumable')
            break
        }
        'reconctl;help;plan;mark' {
            [CompletionResult]::new('accepted', 'accepted', [CompletionResultType]::ParameterValue, 'Plan uncertain/conflict/safe_to_retry → accepted (the destination has it; looked up now and at apply)')
            [CompletionResult]::new('safe-to-retry', 'safe-to-retry', [CompletionResultType]::ParameterValue, 'Plan uncertain/conflict → safe_to_retry, and failed → safe_to_retry (redrive); looked up now and at apply')
            [CompletionResult]::new('failed', 'failed', [CompletionResultType]::ParameterValue, 'Plan pending/safe_to_retry/uncertain/conflict → failed (give up)')
            break
        }
        'reconctl;help;plan;mark;accepted' {
            break
        }
        'reconctl;help;plan;mark;safe-to-retry' {
            break
        }
        'reconctl;help;plan;mark;failed' {
            break
        }
        'reconctl;help;plan;list' {
            break
        }
        'reconctl;help;plan;show' {
            break
        }
        'reconctl;help;plan;approve' {
            break
        }
        'reconctl;help;plan;discard' {
            break
        }
        'reconctl;help;plan;apply' {
            break
        }
        'reconctl;help;events' {
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'Write every event of the months before MONTH to one compressed file (JSON lines, a manifest first) and record the archive')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Drop the monthly partitions of the audit log before MONTH that an archive holds in full')
            break
        }
        'reconctl;help;events;archive' {
            break
        }
        'reconctl;help;events;prune' {
            break
        }
        'reconctl;help;metrics' {
            break
        }
        'reconctl;help;check' {
            break
        }
        'reconctl;help;sandbox' {
            break
        }
        'reconctl;help;destination' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every destination that is configured, paused, or has open jobs: paused or not, by whom, why, until when')
            [CompletionResult]::new('pause', 'pause', [CompletionResultType]::ParameterValue, 'Stop workers claiming one destination''s jobs (in-flight jobs finish as usual)')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Let workers claim one destination''s jobs again')
            break
        }
        'reconctl;help;destination;list' {
            break
        }
        'reconctl;help;destination;pause' {
            break
        }
        'reconctl;help;destination;resume' {
            break
        }
        'reconctl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
