//! Floor 5: view pieces used by several pages — the job line, the pager,
//! the charts, the evidence table, the settings panel, the model API form, the answer box,
//! the file drop zone, Markdown as text, a similarity step by step and the task switch. They read state and start jobs; they hold no
//! app logic of their own.

pub mod anatomy_strip;
pub mod answer_box;
pub mod call_path_anatomy;
pub mod charts;
pub mod drop_zone;
pub mod evidence_table;
pub mod markdown;
pub mod model_api_form;
pub mod pager;
pub mod progress;
pub mod reasoning_fold;
pub mod settings_panel;
pub mod task_switch;
pub mod tour;
pub mod verdict_steps;
