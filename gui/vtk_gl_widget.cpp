#include "gui/vtk_gl_widget.h"

#include <QElapsedTimer>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QSurfaceFormat>
#include <QWheelEvent>

#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkOpenGLState.h>

namespace topolens::gui {

void use_vtk_surface_format() {
    QSurfaceFormat format;
    format.setRenderableType(QSurfaceFormat::OpenGL);
    format.setVersion(3, 2);
    format.setProfile(QSurfaceFormat::CoreProfile);
    format.setSwapBehavior(QSurfaceFormat::DoubleBuffer);
    format.setRedBufferSize(8);
    format.setGreenBufferSize(8);
    format.setBlueBufferSize(8);
    format.setAlphaBufferSize(8);
    format.setDepthBufferSize(24);
    format.setStencilBufferSize(0);
    format.setSamples(0);
    QSurfaceFormat::setDefaultFormat(format);
}

namespace {
constexpr int kDragThreshold = 4; // pixels a press may move and still be a click
}

VtkGlWidget::VtkGlWidget(QWidget* parent) : QOpenGLWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    // VTK renders into its own framebuffer; paintGL blits it, so VTK must not blit itself.
    window_->SetFrameBlitModeToNoBlit();
    window_->SetMultiSamples(0);
    window_->SetReadyForRendering(false);
    auto observe = [this](unsigned long event) {
        vtkNew<vtkCallbackCommand> command;
        command->SetClientData(this);
        command->SetCallback([](vtkObject* caller, unsigned long id, void* client, void* data) {
            static_cast<VtkGlWidget*>(client)->window_event(caller, id, data);
        });
        window_->AddObserver(event, command);
    };
    observe(vtkCommand::WindowMakeCurrentEvent);
    observe(vtkCommand::WindowIsCurrentEvent);
    observe(vtkCommand::WindowFrameEvent);

    interactor_->SetRenderWindow(window_);
    vtkNew<vtkInteractorStyleTrackballCamera> style;
    interactor_->SetInteractorStyle(style);
    auto relay = [this, &style](unsigned long event) {
        vtkNew<vtkCallbackCommand> command;
        command->SetClientData(this);
        command->SetCallback([](vtkObject*, unsigned long id, void* client, void*) {
            auto* widget = static_cast<VtkGlWidget*>(client);
            if (id == vtkCommand::StartInteractionEvent)
                emit widget->interactionStarted();
            else
                emit widget->interactionFinished();
        });
        style->AddObserver(event, command);
    };
    relay(vtkCommand::StartInteractionEvent);
    relay(vtkCommand::EndInteractionEvent);
    // The interactor asks for a render after every camera change: schedule a repaint
    // instead, so that all rendering happens in paintGL with Qt's context current.
    interactor_->EnableRenderOff();
    vtkNew<vtkCallbackCommand> render_request;
    render_request->SetClientData(this);
    render_request->SetCallback([](vtkObject*, unsigned long, void* client, void*) {
        static_cast<VtkGlWidget*>(client)->update();
    });
    interactor_->AddObserver(vtkCommand::RenderEvent, render_request);
    interactor_->Enable();
}

VtkGlWidget::~VtkGlWidget() {
    makeCurrent();
    window_->Finalize();
    doneCurrent();
}

vtkGenericOpenGLRenderWindow* VtkGlWidget::render_window() const {
    return window_.Get();
}
vtkGenericRenderWindowInteractor* VtkGlWidget::interactor() const {
    return interactor_.Get();
}

void VtkGlWidget::window_event(vtkObject*, unsigned long event, void* call_data) {
    switch (event) {
    case vtkCommand::WindowMakeCurrentEvent:
        // Not QOpenGLWidget::makeCurrent(): it also binds the widget's framebuffer, and VTK
        // would then draw into it behind its own back (the picture comes out black).
        if (context()) context()->makeCurrent(context()->surface());
        break;
    case vtkCommand::WindowIsCurrentEvent:
        *static_cast<bool*>(call_data) =
            context() != nullptr && QOpenGLContext::currentContext() == context();
        break;
    case vtkCommand::WindowFrameEvent:
        // A render outside paintGL (none of ours, but VTK may do one): show it.
        if (!in_paint_) update();
        break;
    default:
        break;
    }
}

void VtkGlWidget::initializeGL() {
    window_->SetOwnContext(0);
    window_->SetReadyForRendering(true);
    window_->OpenGLInitContext();
}

void VtkGlWidget::resizeGL(int width, int height) {
    const int w = static_cast<int>(width * devicePixelRatioF());
    const int h = static_cast<int>(height * devicePixelRatioF());
    window_->SetSize(w, h);
    interactor_->SetSize(w, h);
    interactor_->UpdateSize(w, h);
}

double VtkGlWidget::render_frame_now() {
    QElapsedTimer timer;
    timer.start();
    makeCurrent();
    paintGL();
    context()->functions()->glFinish();
    doneCurrent();
    return static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

void VtkGlWidget::paintGL() {
    in_paint_ = true;
    const int w = static_cast<int>(width() * devicePixelRatioF());
    const int h = static_cast<int>(height() * devicePixelRatioF());
    if (window_->GetSize()[0] != w || window_->GetSize()[1] != h) window_->SetSize(w, h);
    window_->Render();
    // VTK's picture is in its display framebuffer: copy it into the widget's.
    vtkOpenGLState* state = window_->GetState();
    state->PushFramebufferBindings();
    state->vtkglBindFramebuffer(GL_DRAW_FRAMEBUFFER, defaultFramebufferObject());
    window_->BlitDisplayFramebuffer();
    // VTK leaves partial alpha where it blended (text, lines); Qt would then compose the
    // widget with what lies behind it. The picture is opaque: set alpha to 1 everywhere.
    // Through VTK's state cache, so that VTK's next frame sets its own mask and colour.
    state->vtkglColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_TRUE);
    state->vtkglClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    state->vtkglClear(GL_COLOR_BUFFER_BIT);
    state->vtkglColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    state->PopFramebufferBindings();
    in_paint_ = false;
}

void VtkGlWidget::set_event_position(const QPointF& position, Qt::KeyboardModifiers modifiers) {
    const double ratio = devicePixelRatioF();
    const int x = static_cast<int>(position.x() * ratio);
    // VTK counts rows from the bottom.
    const int y = static_cast<int>((height() - position.y() - 1) * ratio);
    interactor_->SetEventInformation(x, y, (modifiers & Qt::ControlModifier) ? 1 : 0,
                                     (modifiers & Qt::ShiftModifier) ? 1 : 0);
}

void VtkGlWidget::mousePressEvent(QMouseEvent* event) {
    set_event_position(event->position(), event->modifiers());
    press_position_ = event->position().toPoint();
    dragged_ = false;
    switch (event->button()) {
    case Qt::LeftButton:
        interactor_->InvokeEvent(vtkCommand::LeftButtonPressEvent);
        break;
    case Qt::RightButton:
        interactor_->InvokeEvent(vtkCommand::RightButtonPressEvent);
        break;
    case Qt::MiddleButton:
        interactor_->InvokeEvent(vtkCommand::MiddleButtonPressEvent);
        break;
    default:
        break;
    }
}

void VtkGlWidget::mouseMoveEvent(QMouseEvent* event) {
    if ((event->position().toPoint() - press_position_).manhattanLength() > kDragThreshold)
        dragged_ = true;
    set_event_position(event->position(), event->modifiers());
    interactor_->InvokeEvent(vtkCommand::MouseMoveEvent);
}

void VtkGlWidget::mouseReleaseEvent(QMouseEvent* event) {
    set_event_position(event->position(), event->modifiers());
    switch (event->button()) {
    case Qt::LeftButton:
        interactor_->InvokeEvent(vtkCommand::LeftButtonReleaseEvent);
        break;
    case Qt::RightButton:
        interactor_->InvokeEvent(vtkCommand::RightButtonReleaseEvent);
        break;
    case Qt::MiddleButton:
        interactor_->InvokeEvent(vtkCommand::MiddleButtonReleaseEvent);
        break;
    default:
        break;
    }
    if (event->button() == Qt::LeftButton && !dragged_) {
        const double ratio = devicePixelRatioF();
        emit clicked(event->position().x() * ratio, (height() - event->position().y() - 1) * ratio);
    }
}

void VtkGlWidget::wheelEvent(QWheelEvent* event) {
    set_event_position(event->position(), event->modifiers());
    if (event->angleDelta().y() > 0)
        interactor_->InvokeEvent(vtkCommand::MouseWheelForwardEvent);
    else if (event->angleDelta().y() < 0)
        interactor_->InvokeEvent(vtkCommand::MouseWheelBackwardEvent);
}

} // namespace topolens::gui
