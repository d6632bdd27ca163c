//! `--state` and the like: an enumerated value that must be exactly one of its names (SPEC §5:
//! a filter accepts exactly the names it matches, so `--state Uncertain` is refused at parse
//! time instead of quietly matching or not), read by its domain type's own `FromStr`, with
//! its names told to clap for `--help` and the shell completions. A leaf beside the
//! commands' Args (it knows only clap).

/// A value parser for an enumerated value spelled exactly as one of `names`, then read by its
/// own `FromStr`; it tells clap the values there are: `--help` lists them and the shell
/// completions offer them (bash, zsh, fish).
#[derive(Clone)]
pub struct OneOf<T> {
    names: &'static [&'static str],
    of: std::marker::PhantomData<fn() -> T>,
}

/// `--state` and the like: `value_parser = one_of::<State>(&NAMES)`.
pub fn one_of<T>(names: &'static [&'static str]) -> OneOf<T> {
    OneOf {
        names,
        of: std::marker::PhantomData,
    }
}

impl<T> clap::builder::TypedValueParser for OneOf<T>
where
    T: std::str::FromStr<Err = String> + Clone + Send + Sync + 'static,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<T, clap::Error> {
        let text = value.to_string_lossy();
        let name = arg.map(|a| a.to_string()).unwrap_or_else(|| "VALUE".into());
        let refuse = |why: String| {
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("invalid value '{text}' for '{name}': {why}\n"),
            )
            .with_cmd(cmd)
        };
        if !self.names.contains(&text.as_ref()) {
            let expected = format!("expected one of: {}", self.names.join(", "));
            // A near miss (`Uncertain`, `in-flight`) names the spelling it missed.
            let near = text
                .trim()
                .to_ascii_lowercase()
                .replace('-', "_")
                .chars()
                .take(40)
                .collect::<String>();
            return Err(refuse(if self.names.contains(&near.as_str()) {
                format!("{expected} (names are exact: did you mean '{near}'?)")
            } else {
                expected
            }));
        }
        text.parse::<T>().map_err(refuse)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            self.names
                .iter()
                .map(|n| clap::builder::PossibleValue::new(*n)),
        ))
    }
}

/// A value parser that takes any text (its command checks it, forgivingly) but tells clap the
/// values there are, so `--help` lists them and the shell completions offer them instead of
/// file names (`events --action <TAB>`).
#[derive(Clone)]
pub struct Offering {
    names: fn() -> Vec<&'static str>,
}

/// `value_parser = offering(valid_actions)`.
pub fn offering(names: fn() -> Vec<&'static str>) -> Offering {
    Offering { names }
}

impl clap::builder::TypedValueParser for Offering {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            (self.names)()
                .into_iter()
                .map(clap::builder::PossibleValue::new),
        ))
    }
}
