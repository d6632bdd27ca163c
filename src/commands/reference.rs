//! `reconctl ref TENANT ARTICLE REVISION DESTINATION`: the external_ref of a business key.

use serde::Serialize;

use super::Exit;
use crate::context::Context;
use crate::error::Result;
use crate::jobs::BusinessKey;
use crate::ui::{Output, Render, Ui};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  $ reconctl ref t a1 3 cms\n  pub_8b8c924e8b3406292a3b0f5ee972a595c3e55fd531027041c23d607d85631852"
)]
pub struct Args {
    pub tenant: String,
    pub article: String,
    pub revision: String,
    pub destination: String,
}

#[derive(Serialize)]
struct RefReport {
    tenant_id: String,
    article_id: String,
    revision_id: String,
    destination: String,
    external_ref: String,
}

impl Render for RefReport {
    fn output(&self) -> Output {
        Output::Data
    }

    fn table(&self, _ui: &Ui) -> String {
        self.external_ref.clone()
    }
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let key = BusinessKey::new(
        &args.tenant,
        &args.article,
        &args.revision,
        &args.destination,
    );
    ctx.ui.emit(&RefReport {
        external_ref: key.external_ref(),
        tenant_id: key.tenant_id,
        article_id: key.article_id,
        revision_id: key.revision_id,
        destination: key.destination,
    })?;
    Ok(Exit::Done)
}
