//! The unsaved-changes prompt: a command that would drop unsaved changes (open, import,
//! quit) waits for Save, Discard or Cancel.

use super::FileCommand;
use bevy::prelude::*;

/// Where the prompt is.
#[derive(Resource, Default, Debug, Clone, PartialEq)]
pub enum Prompt {
    #[default]
    Idle,
    /// This command waits for an answer.
    Asking(FileCommand),
    /// Save was chosen: the command runs once the save has succeeded (forgotten if the save
    /// fails or no path is chosen).
    SaveThen(FileCommand),
    /// Discard was chosen: the command runs without asking again.
    Discarding(FileCommand),
}

/// The prompt's answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Save,
    Discard,
    Cancel,
}

impl Prompt {
    /// Whether `command` may drop unsaved changes without asking (Discard was chosen for it);
    /// the prompt is then done.
    pub fn proceed(&mut self, command: &FileCommand) -> bool {
        if *self == Prompt::Discarding(command.clone()) {
            *self = Prompt::Idle;
            return true;
        }
        false
    }

    /// The command asked about, if the prompt is asking.
    pub fn asking(&self) -> Option<&FileCommand> {
        match self {
            Prompt::Asking(c) => Some(c),
            _ => None,
        }
    }

    /// The user answered.
    pub fn answer(&mut self, answer: Answer, commands: &mut MessageWriter<FileCommand>) {
        let Prompt::Asking(command) = std::mem::take(self) else { return };
        match answer {
            Answer::Save => {
                *self = Prompt::SaveThen(command);
                commands.write(FileCommand::Save);
            }
            Answer::Discard => {
                *self = Prompt::Discarding(command.clone());
                commands.write(command);
            }
            Answer::Cancel => {}
        }
    }

    /// A save ended: on success the command that waited for it runs; either way the prompt is
    /// done.
    pub fn saved(&mut self, ok: bool, commands: &mut MessageWriter<FileCommand>) {
        if let Prompt::SaveThen(command) = std::mem::take(self)
            && ok
        {
            commands.write(command);
        }
    }

    /// The path chooser closed with nothing chosen: a command waiting on a save waits no more.
    pub fn choice_cancelled(&mut self) {
        if matches!(self, Prompt::SaveThen(_)) {
            *self = Prompt::Idle;
        }
    }
}
