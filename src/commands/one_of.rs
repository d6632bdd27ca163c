//! `--state` and the like: an enumerated value read by its domain type's own `FromStr`
//! (forgiving about case and dashes), with its names told to clap for `--help` and the
//! shell completions. A leaf beside the commands' Args (it knows only clap).

/// A value parser for an enumerated value read by its own `FromStr` (forgiving about case
/// and dashes, as `State`'s is), which still tells clap the values there are: `--help`
/// lists them and the shell completions offer them (bash, zsh, fish).
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
        text.parse::<T>().map_err(|e| {
            let name = arg.map(|a| a.to_string()).unwrap_or_else(|| "VALUE".into());
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("invalid value '{text}' for '{name}': {e}\n"),
            )
            .with_cmd(cmd)
        })
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
