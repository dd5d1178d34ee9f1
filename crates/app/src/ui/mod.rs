//! The egui UI: menu bar (`menus.rs`), parts and solver panels (`panels.rs`), status bar
//! (`status_bar.rs`), dialogs: errors, unsaved changes, choosing a file, progress
//! (`dialogs.rs`). It only sends commands ([`FileCommand`], [`Edit`], [`DragPathCommand`],
//! [`FitView`]) and edits settings; the plugins that own the state carry them out. The keyboard
//! shortcuts are in shortcuts.rs.
//!
//! egui gets its own camera, drawn over the 3-D one; the 3-D camera's viewport is the area
//! between the panels. The pointer belongs to the UI where bevy_egui's `EguiWantsInput` says
//! so (menus, dialogs, a widget being dragged) and outside that viewport (the panels).

mod dialogs;
mod menus;
mod panels;
mod status_bar;

use crate::MockupSet;
use crate::camera::{FitView, Orbit};
use crate::contacts::ShowContacts;
use crate::drag_path::{DragPath, DragPathCommand, Player};
use crate::files::chooser::{Chooser, FileChosen, NativeDialogs};
use crate::files::job::FileJob;
use crate::files::prompt::Prompt;
use crate::files::recent::RecentFiles;
use crate::files::{Errors, FileCommand, SceneFile, Unsaved};
use crate::history::{Edit, History};
use crate::input::UiFocus;
use crate::manipulation::{ActiveDrag, Selection};
use crate::part::Parts;
use crate::scene::SceneInfo;
use crate::solver::{DragBudget, Solver, StepState};
use crate::status::{FrameTime, PartStatus};
use bevy::camera::visibility::RenderLayers;
use bevy::camera::{CameraOutputMode, Viewport};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::render::render_resource::BlendState;
use bevy::window::{PrimaryWindow, WindowCloseRequested};
use bevy_egui::input::EguiWantsInput;
use bevy_egui::{EguiContexts, EguiGlobalSettings, EguiPrimaryContextPass, PrimaryEguiContext, egui};

pub struct UiPlugin;

/// Which panels are open (View menu).
#[derive(Resource)]
struct Panels {
    parts: bool,
    settings: bool,
}

/// The scene as the UI shows it.
#[derive(SystemParam)]
struct View<'w, 's> {
    solver: Res<'w, Solver>,
    info: Res<'w, SceneInfo>,
    parts: Parts<'w, 's>,
    step: Res<'w, StepState>,
    status: Res<'w, PartStatus>,
    frame_time: Res<'w, FrameTime>,
    unsaved: Res<'w, Unsaved>,
    history: Res<'w, History>,
    active: Res<'w, ActiveDrag>,
    path: Res<'w, DragPath>,
    player: Res<'w, Player>,
}

/// What the UI sends.
#[derive(SystemParam)]
struct Outbox<'w> {
    files: MessageWriter<'w, FileCommand>,
    chosen: MessageWriter<'w, FileChosen>,
    edits: MessageWriter<'w, Edit>,
    drag_path: MessageWriter<'w, DragPathCommand>,
    fit: MessageWriter<'w, FitView>,
}

/// The files' state the UI shows and answers.
#[derive(SystemParam)]
struct FileUi<'w> {
    job: Res<'w, FileJob>,
    errors: ResMut<'w, Errors>,
    prompt: ResMut<'w, Prompt>,
    chooser: ResMut<'w, Chooser>,
    native: ResMut<'w, NativeDialogs>,
    recent: Res<'w, RecentFiles>,
    file: Res<'w, SceneFile>,
}

/// What the UI edits directly (settings of the app, not of the scene).
#[derive(SystemParam)]
struct AppSettings<'w> {
    selection: ResMut<'w, Selection>,
    show_contacts: ResMut<'w, ShowContacts>,
    panels: ResMut<'w, Panels>,
    budget: ResMut<'w, DragBudget>,
}

impl Plugin for UiPlugin {
    fn build(&self, app: &mut App) {
        // egui draws with a camera of its own, so the 3-D camera can have a viewport.
        if let Some(mut settings) = app.world_mut().get_resource_mut::<EguiGlobalSettings>() {
            settings.auto_create_primary_context = false;
        }
        app.insert_resource(Panels { parts: true, settings: true })
            .add_systems(Startup, spawn_ui_camera)
            .add_systems(EguiPrimaryContextPass, ui)
            .add_systems(Update, (focus, close_requested).in_set(MockupSet::Input))
            .add_systems(Update, title.in_set(MockupSet::Present));
    }
}

fn spawn_ui_camera(mut commands: Commands) {
    commands.spawn((
        PrimaryEguiContext,
        Camera3d::default(),
        // Nothing of the scene: only the UI.
        RenderLayers::none(),
        Camera {
            order: 1,
            output_mode: CameraOutputMode::Write {
                blend_state: Some(BlendState::ALPHA_BLENDING),
                clear_color: ClearColorConfig::None,
            },
            clear_color: ClearColorConfig::Custom(Color::NONE),
            ..default()
        },
    ));
}

/// The pointer and the keyboard: the UI's where egui wants them, and the pointer outside the
/// 3-D view; or while a file job runs (its progress dialog covers the view).
pub fn focus(
    wants: Res<EguiWantsInput>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<&Camera, With<Orbit>>,
    job: Res<FileJob>,
    mut focus: ResMut<UiFocus>,
) {
    let outside =
        window.cursor_position().is_some_and(|c| camera.logical_viewport_rect().is_some_and(|r| !r.contains(c)));
    let now = UiFocus {
        pointer: wants.wants_any_pointer_input() || outside || job.busy(),
        keyboard: wants.wants_any_keyboard_input(),
    };
    if *focus != now {
        *focus = now;
    }
}

/// Closing the window is Quit: unsaved changes prompt first.
fn close_requested(mut requests: MessageReader<WindowCloseRequested>, mut files: MessageWriter<FileCommand>) {
    if requests.read().count() > 0 {
        files.write(FileCommand::Quit);
    }
}

fn title(file: Res<SceneFile>, unsaved: Res<Unsaved>, mut window: Single<&mut Window, With<PrimaryWindow>>) {
    let star = if unsaved.0 { "*" } else { "" };
    let text = format!("Mockup — {}{star}", file.origin.title());
    if window.title != text {
        window.title = text;
    }
}

fn ui(
    mut contexts: EguiContexts,
    view: View,
    mut send: Outbox,
    mut files: FileUi,
    mut settings: AppSettings,
    mut camera: Single<&mut Camera, With<Orbit>>,
    window: Single<&Window, With<PrimaryWindow>>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut root = egui::Ui::new(
        ctx.clone(),
        "mockup-root".into(),
        egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(ctx.viewport_rect()),
    );
    egui::Panel::top("menu").show(&mut root, |ui| menus::menu_bar(ui, &view, &mut send, &mut files, &mut settings));
    let selected = settings.selection.0;
    egui::Panel::bottom("status").show(&mut root, |ui| status_bar::status_bar(ui, &view, selected));
    if settings.panels.parts {
        egui::Panel::left("parts")
            .resizable(true)
            .show(&mut root, |ui| panels::parts(ui, &view, &mut settings.selection, &mut send.edits));
    }
    if settings.panels.settings {
        egui::Panel::right("settings")
            .resizable(true)
            .show(&mut root, |ui| panels::solver(ui, &view, &mut send.edits, &mut settings.budget));
    }
    set_viewport(&mut camera, root.available_rect_before_wrap(), &window);
    dialogs::dialogs(ctx, &mut files, &mut send);
    Ok(())
}

/// The 3-D camera draws into `rect` (logical pixels): the area the panels leave.
fn set_viewport(camera: &mut Camera, rect: egui::Rect, window: &Window) {
    let scale = window.scale_factor();
    let size = UVec2::new(window.physical_width(), window.physical_height());
    let min = (Vec2::new(rect.min.x, rect.min.y) * scale).round().as_uvec2().min(size);
    let max = (Vec2::new(rect.max.x, rect.max.y) * scale).round().as_uvec2().min(size);
    let viewport = (max.x > min.x + 1 && max.y > min.y + 1).then(|| Viewport {
        physical_position: min,
        physical_size: max - min,
        ..default()
    });
    let same = match (&camera.viewport, &viewport) {
        (Some(a), Some(b)) => a.physical_position == b.physical_position && a.physical_size == b.physical_size,
        (None, None) => true,
        _ => false,
    };
    if !same {
        camera.viewport = viewport;
    }
}
