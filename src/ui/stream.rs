//! A document written as it is produced, for runs over many jobs (`reconcile`) that hold
//! none of them: JSON opened with its first members, the list's items as they come, and
//! closed with the last members, or, when the run fails midway, with an `"error"` member, so
//! stdout always carries exactly one JSON document; JSON lines one object a line (the
//! members around the list in one object after the items, then the error when it failed); a table one line an item under a header.
//!
//! A closed stdout is remembered: the first write that meets it returns the broken-pipe
//! error (the caller decides whether the run stops or finishes what was consented to), and
//! every later write is skipped.

use std::io::{self, Write};

use serde_json::Value;

use super::{Format, Ui};
use crate::error::{Error, Kind, Result};

pub struct Stream<'a> {
    ui: &'a Ui,
    head: Vec<(&'static str, Value)>,
    list: &'static str,
    header: String,
    items: u64,
    closed: bool,
}

impl<'a> Stream<'a> {
    /// `head` are the members before the list named `list`; `header` the table's first line.
    pub fn new(
        ui: &'a Ui,
        head: Vec<(&'static str, Value)>,
        list: &'static str,
        header: String,
    ) -> Stream<'a> {
        Stream {
            ui,
            head,
            list,
            header,
            items: 0,
            closed: false,
        }
    }

    /// Whether stdout was found closed.
    pub fn stdout_closed(&self) -> bool {
        self.closed
    }

    /// How many items were written.
    pub fn items(&self) -> u64 {
        self.items
    }

    fn write(&mut self, text: &str) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        let mut out = io::stdout().lock();
        match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Err(Error::broken_pipe())
            }
            Err(e) => Err(Error::runtime(format!("cannot write output: {e}"))),
        }
    }

    fn opening(&self) -> String {
        let mut text = String::from("{\n");
        for (k, v) in &self.head {
            text.push_str(&format!("  {}: {v},\n", Value::from(*k)));
        }
        text.push_str(&format!("  {}: [", Value::from(self.list)));
        text
    }

    /// One item: its JSON, and its table line (built only when a table is printed).
    pub fn item(&mut self, json: &Value, line: impl FnOnce() -> String) -> Result<()> {
        let first = self.items == 0;
        self.items += 1;
        let text = match self.ui.format {
            Format::Json => {
                let item = serde_json::to_string(json).unwrap_or_default();
                if first {
                    format!("{}\n    {item}", self.opening())
                } else {
                    format!(",\n    {item}")
                }
            }
            Format::Jsonl => format!("{}\n", serde_json::to_string(json).unwrap_or_default()),
            Format::Table if self.ui.quiet => return Ok(()),
            Format::Table if first => format!("{}\n{}\n", self.header, line()),
            Format::Table => format!("{}\n", line()),
        };
        self.write(&text)
    }

    fn closing(&self, tail: &[(&'static str, Value)]) -> String {
        let mut text = if self.items == 0 {
            format!("{}],\n", self.opening())
        } else {
            "\n  ],\n".to_string()
        };
        let members: Vec<String> = tail
            .iter()
            .map(|(k, v)| format!("  {}: {v}", Value::from(*k)))
            .collect();
        text.push_str(&members.join(",\n"));
        text.push_str("\n}\n");
        text
    }

    /// JSON lines' last object: the members around the list (the head's and the tail's),
    /// which the items' lines do not carry.
    fn last_line(&self, tail: Vec<(&'static str, Value)>) -> String {
        let obj: serde_json::Map<String, Value> = self
            .head
            .iter()
            .cloned()
            .chain(tail)
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        format!("{}\n", Value::Object(obj))
    }

    /// The end: the last members (JSON; in JSON lines one object holding them), and the
    /// table's closing text (not with `-q`).
    pub fn finish(mut self, tail: Vec<(&'static str, Value)>, table: &str) -> Result<()> {
        let text = match self.ui.format {
            Format::Json => self.closing(&tail),
            Format::Jsonl => self.last_line(tail),
            Format::Table if self.ui.quiet || table.is_empty() => return Ok(()),
            Format::Table => format!("{table}\n"),
        };
        self.write(&text)
    }

    /// The end of a run that failed midway: the document closed with the members so far and
    /// the error (JSON lines: the members so far, then the error, as the last two lines). Returns the error marked as
    /// already in the output, for the caller to return (stderr still says it).
    pub fn fail(mut self, tail: Vec<(&'static str, Value)>, err: Error) -> Error {
        if err.kind() == Kind::BrokenPipe {
            return err;
        }
        let doc = err.to_json();
        let text = match self.ui.format {
            Format::Json => {
                let mut tail = tail;
                tail.push(("error", doc["error"].clone()));
                self.closing(&tail)
            }
            Format::Jsonl => format!("{}{doc}\n", self.last_line(tail)),
            Format::Table => return err,
        };
        match self.write(&text) {
            Ok(()) => err.in_output(),
            Err(_) => err,
        }
    }
}
